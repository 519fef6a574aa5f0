import {
  type CertificateChain,
  certificateChainSchema,
  createCertificateChain,
} from '../crypto/certificates.js';
import { type Deferred, defer, made } from '../crypto/deferred-keys.js';
import type { RsaKey } from '../crypto/rsa-key.js';
import { createDocumentCheck } from '../store/document-check.js';
import type { StateStore } from '../store/state-store.js';

const DOCUMENT = 'main-certificates';

interface StoredChain {
  kid: string;
  chain: CertificateChain;
}

const checkChain = createDocumentCheck<StoredChain>({
  type: 'object',
  required: ['kid', 'chain'],
  properties: { kid: { type: 'string', minLength: 1 }, chain: certificateChainSchema },
});

/** Options of {@link loadMainCertificates}. */
export interface MainCertificatesOptions {
  /** The main deployment key when it was loaded from the data dir, else undefined. */
  storedKey: RsaKey | undefined;
  /** The main deployment key, made on first use when it was not stored. */
  key: () => Promise<RsaKey>;
  /** Issue time of a new chain (the server clock), ms since the epoch. */
  now: () => number;
}

/**
 * The certificate chain of the main deployment key. A stored chain is read and checked now (a
 * chain of another key, or one without its key, is refused, never silently replaced: apps embed
 * its root); without one, the chain (root key, root certificate, signing certificate; five years
 * from `now`) is made and stored on first use, off the start path.
 *
 * @example
 * const chain = await loadMainCertificates(app.store, { storedKey, key, now });
 * const { rootCertificate } = await chain.get();
 */
export async function loadMainCertificates(
  store: StateStore,
  options: MainCertificatesOptions,
): Promise<Deferred<CertificateChain>> {
  const { storedKey } = options;
  const stored = await store.read(DOCUMENT, (value) => {
    const chain = checkChain(value);
    if (chain.kid !== storedKey?.kid) {
      throw new Error(
        `/kid: the chain belongs to key ${chain.kid}, but main-key.json ${storedKey ? `holds ${storedKey.kid}` : 'is missing'}`,
      );
    }
    return chain;
  });
  if (stored) return made(stored.chain);
  return defer(async () => {
    const key = await options.key();
    const chain = await createCertificateChain(key, {
      now: options.now(),
      label: 'Main licensing',
    });
    await store.write(DOCUMENT, { kid: key.kid, chain } satisfies StoredChain);
    return chain;
  });
}
