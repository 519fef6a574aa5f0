import {
  type CertificateChain,
  certificateChainSchema,
  createCertificateChain,
  toX5c,
} from '../crypto/certificates.js';
import { type PublicRsaJwk, toPublicJwk } from '../crypto/jwk.js';
import {
  checkStoredRsaKey,
  generateRsaKey,
  loadRsaKey,
  type RsaKey,
  storedRsaKeySchema,
  storeRsaKey,
} from '../crypto/rsa-key.js';
import { createDocumentCheck } from '../store/document-check.js';
import type { StateStore } from '../store/state-store.js';

/** A standby signing key with its certificate chain and public JWK. */
export interface SigningKey {
  readonly key: RsaKey;
  readonly chain: CertificateChain;
  readonly jwk: PublicRsaJwk;
  /** When the key was generated, ISO 8601. */
  readonly createdAt: string;
}

interface StoredSigningKey {
  kid: string;
  privatePem: string;
  createdAt: string;
  chain: CertificateChain;
}

/**
 * The standby's signing keys, newest (the default) first. On a first start the ring is empty
 * until {@link SigningKeyRing.ready} has made the first key (on the first request that needs a
 * key, or right after the server listens).
 */
export interface SigningKeyRing {
  /** The newest key; it signs when no `Service-SigningKeyId` is sent. Throws while empty. */
  readonly current: SigningKey;
  /** Makes the first key when there is none (stored first, like any new key); then resolves. */
  ready(): Promise<void>;
  /** The key with `kid`, or undefined. */
  get(kid: string): SigningKey | undefined;
  /** Every key, newest first. */
  list(): readonly SigningKey[];
  /** The JWK set, newest first (rebuilt only when a key is added). */
  jwks(): { keys: PublicRsaJwk[] };
  /** Generates a key and chain, stores it durably, then makes it the default. */
  generate(): Promise<SigningKey>;
}

/** State-store document holding every signing key and its root key. */
const DOCUMENT = 'standby-signing-keys';

const checkKeys = createDocumentCheck<StoredSigningKey[]>(
  {
    type: 'array',
    minItems: 1,
    items: {
      type: 'object',
      required: [...storedRsaKeySchema.required, 'createdAt', 'chain'],
      properties: {
        ...storedRsaKeySchema.properties,
        createdAt: { type: 'string', minLength: 1 },
        chain: certificateChainSchema,
      },
    },
  },
  (keys) => {
    const kids = new Set<string>();
    keys.forEach((key, i) => {
      checkStoredRsaKey(key, `/${i}/privatePem`);
      if (kids.has(key.kid)) throw new Error(`/${i}/kid ${key.kid} is there twice`);
      kids.add(key.kid);
    });
  },
);

async function makeKey(now: number): Promise<SigningKey> {
  const key = await generateRsaKey();
  const chain = await createCertificateChain(key, { now, label: 'Standby licensing' });
  return {
    key,
    chain,
    jwk: toPublicJwk(key, toX5c(chain)),
    createdAt: new Date(now).toISOString(),
  };
}

function toStored(k: SigningKey): StoredSigningKey {
  return { ...storeRsaKey(k.key), createdAt: k.createdAt, chain: k.chain };
}

function fromStored(stored: StoredSigningKey): SigningKey {
  const key = loadRsaKey(stored);
  return {
    key,
    chain: stored.chain,
    jwk: toPublicJwk(key, toX5c(stored.chain)),
    createdAt: stored.createdAt,
  };
}

/**
 * Loads the standby's signing keys from `store` (checked now: a damaged file stops the start).
 * With none stored, the first key is made by `ready()`, not here: key generation stays off the
 * start path. A new key is written (atomically, with every older key) before it is used or
 * returned, so the server never hands out a key id it could lose.
 *
 * @example
 * const ring = await loadSigningKeyRing(app.store, () => app.clock.now());
 * await ring.ready();
 * const { kid } = ring.current.key;
 */
export async function loadSigningKeyRing(
  store: StateStore,
  now: () => number,
): Promise<SigningKeyRing> {
  const stored = await store.read(DOCUMENT, checkKeys);
  let keys: SigningKey[] = stored?.map(fromStored) ?? [];
  let byKid = new Map(keys.map((k) => [k.key.kid, k]));
  let jwks = { keys: keys.map((k) => k.jwk) };
  // Generations run one at a time so each write holds every earlier key.
  let queue: Promise<unknown> = Promise.resolve();

  const add = async (): Promise<SigningKey> => {
    const created = await makeKey(now());
    const next = [created, ...keys];
    await store.write(DOCUMENT, next.map(toStored));
    keys = next;
    byKid = new Map(keys.map((k) => [k.key.kid, k]));
    jwks = { keys: keys.map((k) => k.jwk) };
    return created;
  };
  const enqueue = <T>(task: () => Promise<T>): Promise<T> => {
    const result = queue.then(task);
    queue = result.catch(() => undefined);
    return result;
  };
  let first: Promise<void> | undefined;

  return {
    get current() {
      const key = keys[0];
      if (key === undefined) throw new Error('The standby has no signing key yet: await ready()');
      return key;
    },
    ready() {
      if (keys.length > 0) return Promise.resolve();
      // One making for every caller; a failure is forgotten so the next call tries again.
      first ??= enqueue(async () => {
        if (keys.length === 0) await add();
      }).finally(() => {
        first = undefined;
      });
      return first;
    },
    get: (kid) => byKid.get(kid),
    list: () => keys,
    jwks: () => jwks,
    // A rotation before the first key was made still leaves the first key behind it, as when
    // the first key was made at start.
    generate: () =>
      enqueue(async () => {
        if (keys.length === 0) await add();
        return add();
      }),
  };
}
