// Page script of test/browser/lease-verifier.test.ts, bundled from the built SDK. It verifies
// leases that the test obtained in Node, with nothing but the page's own APIs (WebCrypto).
import {
  createLeaseVerifier,
  isLicensingError,
  type JwkSet,
  type LeaseClaims,
  type TrustedRoot,
} from '@standby-licensing/sdk';

/** What the test hands the page. */
export interface LeaseVerifierPageInput {
  token: string;
  item: string;
  jwks: JwkSet;
  roots: TrustedRoot[];
}

/** A verification's outcome, as plain data that crosses back to Node. */
export type VerifyOutcome =
  | { ok: true; claims: LeaseClaims }
  | { ok: false; code: string | undefined; name: string; licensingError: boolean };

/** The page's surface, on `window.standbyTest`. */
export interface LeaseVerifierPage {
  verify(input: LeaseVerifierPageInput): Promise<VerifyOutcome>;
  /** What the page runs on: no Node fence, a secure context with WebCrypto. */
  environment(): { nodeBuiltins: boolean; secureContext: boolean; subtle: boolean };
}

declare global {
  interface Window {
    standbyTest: LeaseVerifierPage;
  }
}

window.standbyTest = {
  async verify({ token, item, jwks, roots }) {
    const verifier = createLeaseVerifier({ roots, loadJwks: async () => jwks });
    try {
      return { ok: true, claims: await verifier.verify(token, { service: 'standby', item }) };
    } catch (error) {
      return {
        ok: false,
        code: isLicensingError(error) ? error.code : undefined,
        name: (error as Error).name,
        licensingError: isLicensingError(error),
      };
    }
  },
  environment() {
    const process = (globalThis as { process?: { getBuiltinModule?: unknown } }).process;
    return {
      nodeBuiltins: typeof process?.getBuiltinModule === 'function',
      secureContext: globalThis.isSecureContext,
      subtle: typeof globalThis.crypto?.subtle?.verify === 'function',
    };
  },
};
