/**
 * Turns the operating system's bind errors into {@link NetworkError}s whose message says what to change.
 * `EADDRINUSE` alone says nothing about which address, which protocol, or what to do about it.
 */
import { NetworkError } from '../errors.js';

/** The `code` of a Node.js system error, if it has one. */
export function systemErrorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const { code } = error;
  return typeof code === 'string' ? code : undefined;
}

/** A {@link NetworkError} for a failure to bind `address` over `protocol` (`UDP` or `TCP`). */
export function bindError(error: unknown, address: string, protocol: 'UDP' | 'TCP'): NetworkError {
  const code = systemErrorCode(error);
  const prefix = `cannot bind ${address} (${protocol})`;
  switch (code) {
    case 'EADDRINUSE':
      return new NetworkError(
        'FDKIT_ADDRESS_IN_USE',
        address,
        `${prefix}: the address is already in use by another process or transport; choose another port, or port 0 for an ephemeral one`,
        { cause: error },
      );
    case 'EADDRNOTAVAIL':
      return new NetworkError(
        'FDKIT_BIND_FAILED',
        address,
        `${prefix}: the host is not an address of this machine; bind one of its addresses, or 0.0.0.0 or [::] for all of them (and set advertise to the address peers should use)`,
        { cause: error },
      );
    case 'EACCES':
    case 'EPERM':
      return new NetworkError(
        'FDKIT_BIND_FAILED',
        address,
        `${prefix}: permission denied; ports below 1024 need privileges, so use a port from 1024 up`,
        { cause: error },
      );
    case 'EAFNOSUPPORT':
    case 'EPROTONOSUPPORT':
      return new NetworkError(
        'FDKIT_BIND_FAILED',
        address,
        `${prefix}: this machine does not support the address family (no IPv6?); bind an IPv4 address instead`,
        { cause: error },
      );
    default:
      return new NetworkError(
        'FDKIT_BIND_FAILED',
        address,
        `${prefix}: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
  }
}
