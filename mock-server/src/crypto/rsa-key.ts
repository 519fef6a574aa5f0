import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPair,
  type KeyObject,
} from 'node:crypto';
import { promisify } from 'node:util';

const generateKeyPairAsync = promisify(generateKeyPair);

/** An RSA key pair with a stable key id, as the services keep it in memory. */
export interface RsaKey {
  readonly kid: string;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  /** SPKI PEM text with `\n` line ends and one trailing `\n` (what ServiceKeyHash hashes). */
  readonly publicPem: string;
}

/** The JSON form of an {@link RsaKey} written to the state store. */
export interface StoredRsaKey {
  kid: string;
  privatePem: string;
}

/** JSON schema of a {@link StoredRsaKey} (the shape of its data-dir documents). */
export const storedRsaKeySchema = {
  type: 'object',
  required: ['kid', 'privatePem'],
  properties: {
    kid: { type: 'string', minLength: 1 },
    privatePem: { type: 'string', pattern: '-----BEGIN PRIVATE KEY-----' },
  },
} as const;

/**
 * Checks that a stored key parses as an RSA private key; throws an Error saying what is wrong
 * (`where` names the member, e.g. `/0/privatePem`).
 */
export function checkStoredRsaKey(stored: StoredRsaKey, where = '/privatePem'): void {
  let type: string | undefined;
  try {
    type = createPrivateKey(stored.privatePem).asymmetricKeyType;
  } catch {
    throw new Error(`${where} is not a PKCS#8 private key`);
  }
  if (type !== 'rsa') throw new Error(`${where} is not an RSA key`);
}

/** Generates an RSA-2048 key; `kid` defaults to a hash of the public key. */
export async function generateRsaKey(kid?: string): Promise<RsaKey> {
  const { privateKey } = await generateKeyPairAsync('rsa', { modulusLength: 2048 });
  return fromPrivateKey(privateKey, kid);
}

/** Rebuilds a key from its stored form. */
export function loadRsaKey(stored: StoredRsaKey): RsaKey {
  return fromPrivateKey(createPrivateKey(stored.privatePem), stored.kid);
}

/** The stored form of a key (private PEM in PKCS#8). */
export function storeRsaKey(key: RsaKey): StoredRsaKey {
  return {
    kid: key.kid,
    privatePem: key.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

function fromPrivateKey(privateKey: KeyObject, kid?: string): RsaKey {
  const publicKey = createPublicKey(privateKey);
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  return {
    kid: kid ?? createHash('sha256').update(publicPem).digest('base64url').slice(0, 16),
    privateKey,
    publicKey,
    publicPem,
  };
}
