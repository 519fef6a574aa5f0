import {
  type CertificateChain,
  certificateChainSchema,
  createCertificateChain,
} from '../crypto/certificates.js';
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

/**
 * The certificate chain of the main deployment key: loaded from `store`, or made (root key,
 * root certificate, signing certificate; five years from `now`) and stored on first start. A
 * stored chain of another key is refused, never silently replaced: apps embed its root.
 *
 * @example
 * const chain = await loadMainCertificates(app.store, app.keyring.main, app.clock.now());
 */
export async function loadMainCertificates(
  store: StateStore,
  key: RsaKey,
  now: number,
): Promise<CertificateChain> {
  const stored = await store.read(DOCUMENT, (value) => {
    const chain = checkChain(value);
    if (chain.kid !== key.kid) {
      throw new Error(
        `/kid: the chain belongs to key ${chain.kid}, but main-key.json holds ${key.kid}`,
      );
    }
    return chain;
  });
  if (stored) return stored.chain;
  const chain = await createCertificateChain(key, { now, label: 'Main licensing' });
  await store.write(DOCUMENT, { kid: key.kid, chain } satisfies StoredChain);
  return chain;
}
