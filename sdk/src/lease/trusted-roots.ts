import type { RootExpiringInfo } from '../client-hooks.js';
import { LicensingError } from '../errors.js';
import { parseCertificate } from '../internal/certificate.js';
import { messageOf } from '../internal/message-of.js';
import { parsePemBlocks } from '../internal/pem.js';
import type { LicensingService, TrustedRoot } from '../types.js';
import type { TrustAnchor } from './certificate-chain.js';

/** An embedded root, parsed once, with its expiry. */
export interface ParsedRoot extends TrustAnchor {
  notAfter: number;
  /** The service it vouches for; undefined: either. */
  service?: LicensingService;
}

const ROOT_WARNING_MS = 90 * 86_400_000;
const DAY_MS = 86_400_000;

/**
 * Parses the app's embedded roots (PEM text, CRLF and surrounding text tolerated).
 *
 * @throws LicensingError `INVALID_ARGUMENT` when none is given or one is not a PEM certificate.
 */
export function parseTrustedRoots(roots: unknown): ParsedRoot[] {
  if (!Array.isArray(roots) || roots.length === 0) {
    throw new LicensingError(
      'INVALID_ARGUMENT',
      'roots must list at least one root certificate. Pass the roots embed-root wrote (npx standby-licensing embed-root --help).',
    );
  }
  return roots.map((root: Partial<TrustedRoot> | undefined, index) => {
    try {
      if (typeof root?.pem !== 'string') throw new TypeError('pem must be a string');
      const block = parsePemBlocks(root.pem).find((candidate) => candidate.label === 'CERTIFICATE');
      if (!block) throw new TypeError('no CERTIFICATE PEM block');
      const cert = parseCertificate(block.der);
      return {
        cert,
        der: cert.der,
        ...(typeof root.keyId === 'string' ? { keyId: root.keyId } : {}),
        ...(root.service === 'main' || root.service === 'standby' ? { service: root.service } : {}),
        notAfter: cert.notAfter.getTime(),
      };
    } catch (cause) {
      throw new LicensingError(
        'INVALID_ARGUMENT',
        `roots[${index}] is not a PEM certificate (${messageOf(cause)}). Pass the root embed-root wrote, a -----BEGIN CERTIFICATE----- block.`,
        { cause },
      );
    }
  });
}

/**
 * The roots that vouch for `service`'s keys: those for it and those for either service.
 *
 * @example
 * createServiceKeys({ service: 'main', anchors: anchorsFor(roots, 'main'), ... });
 */
export function anchorsFor(roots: readonly ParsedRoot[], service: LicensingService): ParsedRoot[] {
  return roots.filter((root) => root.service === undefined || root.service === service);
}

/**
 * Returns a check that calls `onExpiring` once per root whose `notAfter` is within 90 days of
 * `now()` (or past): the app needs a release with a new embedded root before then. A throwing
 * listener never breaks verification.
 */
export function watchRootExpiry(
  roots: readonly ParsedRoot[],
  now: () => number,
  onExpiring: ((info: RootExpiringInfo) => void) | undefined,
): () => void {
  const warned = new Set<ParsedRoot>();
  return () => {
    if (!onExpiring) return;
    const at = now();
    for (const root of roots) {
      if (warned.has(root) || root.notAfter - at > ROOT_WARNING_MS) continue;
      warned.add(root);
      try {
        onExpiring({
          ...(root.keyId === undefined ? {} : { keyId: root.keyId }),
          notAfter: new Date(root.notAfter),
          daysLeft: Math.floor((root.notAfter - at) / DAY_MS),
        });
      } catch {
        // A throwing listener must not break verification.
      }
    }
  };
}
