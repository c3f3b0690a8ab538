/**
 * The `keyring` and `label` options that the SWIM node and the heartbeat monitor share (docs/design.md,
 * "Wire"): their validation, with the same errors for both, and the sealer they configure.
 */
import { InvalidOptionError } from '../errors.js';
import { describeReceived } from '../options.js';
import { fillSecureRandom } from '../runtime/system.js';
import { Keyring } from '../wire/keyring.js';
import { LABEL_BYTES_MAX, Sealer } from '../wire/seal.js';

/** The encryption options as given; each owner documents them in its own options interface. */
export interface EncryptionOptions {
  readonly keyring?: Keyring;
  readonly label?: string;
}

/**
 * Checks `keyring` and `label` of `owner`, naming the option in the error; returns the label (`''` when
 * not given). fdkit's wire authenticates the label with the encryption, so it needs a keyring; memberlist's
 * sends it in the clear, in a header of its own, and does not (`labelNeedsKeyring` false).
 */
export function checkEncryptionOptions(
  owner: string,
  options: EncryptionOptions,
  labelNeedsKeyring = true,
): string {
  const { keyring, label } = options;
  if (keyring !== undefined && !(keyring instanceof Keyring)) {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'keyring',
      `${owner}: option keyring must be a Keyring, got ${describeReceived(keyring)}`,
    );
  }
  if (label === undefined) return '';
  if (typeof label !== 'string' || new TextEncoder().encode(label).length > LABEL_BYTES_MAX) {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'label',
      `${owner}: option label must be a string of at most ${LABEL_BYTES_MAX} UTF-8 bytes, got ${typeof label === 'string' ? `${new TextEncoder().encode(label).length} bytes` : describeReceived(label)}`,
    );
  }
  if (keyring === undefined && labelNeedsKeyring) {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'label',
      `${owner}: option label needs option keyring (the label is authenticated by the encryption)`,
    );
  }
  return label;
}

/** The sealer of checked options: undefined without a keyring, so that nothing changes on the wire. */
export function sealerFor(options: EncryptionOptions, label: string): Sealer | undefined {
  return options.keyring === undefined ? undefined : new Sealer(options.keyring, label, fillSecureRandom);
}
