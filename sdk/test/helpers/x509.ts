// TEST HELPER ONLY: @peculiar/x509 for generating (and independently reading) certificates in
// tests. The SDK itself parses certificates with sdk/src/internal/certificate.ts and never loads
// this package. It needs the Reflect metadata polyfill loaded first (its ASN.1 schemas use
// decorators and tsyringe), and a WebCrypto provider: the runtime's own `globalThis.crypto`.
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
