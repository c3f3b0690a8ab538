/**
 * The agent's key file: one base64 AES key per line (32 bytes; 16 or 24 too, as memberlist's keyrings hold them), the first the primary, as memberlist's and
 * Serf's keyrings list them. Blank lines and lines starting with `#` are skipped, so a file can say which
 * key is which. Every mistake names the file and the line, and never prints a key.
 */
import { readFileSync } from 'node:fs';
import { KEY_BYTES, Keyring } from '../wire/keyring.js';
import { UsageError } from './args.js';

// 32 bytes in base64: 43 characters and one `=` of padding; 16 bytes: 22 and `==`; 24 bytes: 32 characters.
const BASE64_KEY = /^(?:[A-Za-z0-9+/]{43}=|[A-Za-z0-9+/]{22}==|[A-Za-z0-9+/]{32})$/;

/** The keyring in `path`; a `UsageError` naming the file (and line) when it cannot be read or is bad. */
export function readKeyringFile(command: string, path: string): Keyring {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new UsageError(`fdkit ${command}: --keyring-file ${path}: cannot be read (${reason})`);
  }
  return parseKeyringFile(command, path, text);
}

/** The keyring described by `text` (the content of `path`). */
export function parseKeyringFile(command: string, path: string, text: string): Keyring {
  const keys: Uint8Array[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (!BASE64_KEY.test(line)) {
      throw new UsageError(
        `fdkit ${command}: --keyring-file ${path}:${i + 1}: not a base64 key of ${KEY_BYTES} bytes (44 characters ending in '=', e.g. from 'openssl rand -base64 32'), or of 16 or 24 bytes for memberlist's clusters`,
      );
    }
    keys.push(Buffer.from(line, 'base64'));
  }
  if (keys.length === 0) {
    throw new UsageError(`fdkit ${command}: --keyring-file ${path}: no key in the file`);
  }
  return new Keyring(keys);
}
