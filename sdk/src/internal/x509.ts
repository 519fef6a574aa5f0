// The only module that imports @peculiar/x509. It needs the Reflect metadata polyfill loaded
// first (its ASN.1 schemas use decorators), and a WebCrypto provider: we use the runtime's own
// `globalThis.crypto` (Node 20+, Electron, browsers) so the SDK never touches node:crypto.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

function ensureCryptoProvider(): void {
  try {
    x509.cryptoProvider.get();
  } catch {
    // No default provider was detected at load time (e.g. a worker without `self`).
    if (globalThis.crypto?.subtle) x509.cryptoProvider.set(globalThis.crypto);
  }
}

ensureCryptoProvider();

export { x509 };
