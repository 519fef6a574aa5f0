import { type CertificateChain, createCertificateChain } from '../crypto/certificates.js';
import type { RsaKey } from '../crypto/rsa-key.js';
import type { StateStore } from '../store/state-store.js';

const DOCUMENT = 'main-certificates';

interface StoredChain {
  kid: string;
  chain: CertificateChain;
}

/**
 * The certificate chain of the main deployment key: loaded from `store`, or made (root key,
 * root certificate, signing certificate; five years from `now`) and stored on first start.
 *
 * @example
 * const chain = await loadMainCertificates(app.store, app.keyring.main, app.clock.now());
 */
export async function loadMainCertificates(
  store: StateStore,
  key: RsaKey,
  now: number,
): Promise<CertificateChain> {
  const stored = await store.read<StoredChain>(DOCUMENT);
  if (stored?.kid === key.kid) return stored.chain;
  const chain = await createCertificateChain(key, { now, label: 'Main licensing' });
  await store.write(DOCUMENT, { kid: key.kid, chain } satisfies StoredChain);
  return chain;
}
