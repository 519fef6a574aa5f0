import { createHash, type KeyObject } from 'node:crypto';

/**
 * The ServiceKeyHash of a public key: lowercase hex SHA-256 over its SPKI PEM text
 * (64-character base64 lines, `\n` line ends, one trailing `\n`), as node exports it.
 *
 * @example
 * const hash = computeServiceKeyHash(app.keyring.main.publicKey);
 */
export function computeServiceKeyHash(publicKey: KeyObject): string {
  const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  return createHash('sha256').update(pem).digest('hex');
}
