import { decodeBase64 } from '../internal/base64.js';
import {
  type CertificateInfo,
  KEY_USAGE,
  parseCertificate,
  sameBytes,
  UnsupportedAlgorithmError,
  verifyCertificateSignature,
} from '../internal/certificate.js';

/** An embedded root certificate, parsed once. */
export interface TrustAnchor {
  cert: CertificateInfo;
  der: Uint8Array;
  keyId?: string;
}

/** One certificate of a verified path, with its validity in ms since the epoch. */
export interface PathValidity {
  /** Where it came from: `x5c[i]` or `embedded root`. */
  label: string;
  subject: string;
  notBefore: number;
  notAfter: number;
}

/** A certificate path whose structure and signatures were verified (dates are checked apart). */
export interface VerifiedPath {
  leaf: CertificateInfo;
  anchor: TrustAnchor;
  /** Every certificate of the path, leaf first, the anchor last. */
  validity: PathValidity[];
}

/** Which part of the chain check failed. */
export type ChainFailure = 'chain' | 'certificate-expired' | 'certificate-not-yet-valid';

/** Why a chain was refused; the message says which certificate and what. */
export class ChainError extends Error {
  override name = 'ChainError';
  readonly failure: ChainFailure;

  constructor(message: string, options: { cause?: unknown; failure?: ChainFailure } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.failure = options.failure ?? 'chain';
  }
}

/** At most this many certificates in `x5c` (a signing cert, a few intermediates and a root). */
const MAX_CHAIN_LENGTH = 8;

/**
 * Purposes of an extendedKeyUsage that make a certificate one issued for something else than
 * signing leases: TLS server and client, code signing, e-mail, time stamping, OCSP responses.
 */
const OTHER_PURPOSES: Readonly<Record<string, string>> = {
  '1.3.6.1.5.5.7.3.1': 'TLS server',
  '1.3.6.1.5.5.7.3.2': 'TLS client',
  '1.3.6.1.5.5.7.3.3': 'code signing',
  '1.3.6.1.5.5.7.3.4': 'e-mail',
  '1.3.6.1.5.5.7.3.8': 'time stamping',
  '1.3.6.1.5.5.7.3.9': 'OCSP signing',
};

/** Throws unless `cert` carries only critical extensions the SDK understands (RFC 5280 4.2). */
function assertNoUnknownCritical(cert: CertificateInfo, label: string) {
  const [oid] = cert.unknownCriticalExtensions;
  if (oid !== undefined) {
    throw new ChainError(`${label} (${cert.subject}) has the unknown critical extension ${oid}`);
  }
}

/**
 * Throws when the signing certificate's extendedKeyUsage is present and names only purposes
 * other than signing leases: such a key was issued for something else. No extendedKeyUsage,
 * `anyExtendedKeyUsage` or a purpose of the vendor's own all leave it free to sign leases.
 */
function assertMaySignLeases(leaf: CertificateInfo) {
  const purposes = leaf.extendedKeyUsage;
  if (purposes === undefined || !purposes.every((oid) => oid in OTHER_PURPOSES)) return;
  if (purposes.length === 0) {
    throw new ChainError(`x5c[0] (${leaf.subject}) has an extendedKeyUsage naming no purpose`);
  }
  const names = purposes.map((oid) => OTHER_PURPOSES[oid]).join(', ');
  throw new ChainError(
    `x5c[0] (${leaf.subject}) is a certificate for ${names} (its extendedKeyUsage), not for signing leases`,
  );
}

/**
 * Whether `issuer`'s key signed `cert`. An algorithm the SDK cannot check is a ChainError naming
 * its OID, not a mere "does not verify".
 */
async function signedBy(cert: CertificateInfo, issuer: CertificateInfo, label: string) {
  try {
    return await verifyCertificateSignature(cert, issuer.publicKey);
  } catch (cause) {
    if (!(cause instanceof UnsupportedAlgorithmError)) return false;
    throw new ChainError(`${label} (${cert.subject}) uses an ${cause.message}`, { cause });
  }
}

/** Throws unless `issuer` may sign certificates: CA basic constraint, keyCertSign, path length. */
function assertMayIssue(issuer: CertificateInfo, label: string, intermediatesBelow: number) {
  const constraints = issuer.basicConstraints;
  if (!constraints?.ca) {
    throw new ChainError(`${label} (${issuer.subject}) issues certificates but is not a CA`);
  }
  const usage = issuer.keyUsage;
  if (usage !== undefined && (usage & KEY_USAGE.keyCertSign) === 0) {
    throw new ChainError(`${label} (${issuer.subject}) lacks the keyCertSign key usage`);
  }
  if (constraints.pathLength !== undefined && intermediatesBelow > constraints.pathLength) {
    throw new ChainError(
      `${label} (${issuer.subject}) allows ${constraints.pathLength} intermediate certificates below it, the chain has ${intermediatesBelow}`,
    );
  }
}

/**
 * Parses an `x5c` chain (standard base64 DER, signing certificate first) and verifies it up to
 * one of `anchors`: the last certificate must be an embedded root or be signed by one; every
 * certificate is signed by the next; each issuer is a CA (keyCertSign when keyUsage is present,
 * path length respected); no certificate below the embedded root carries a critical extension
 * the SDK does not understand; the leaf may sign (digitalSignature when keyUsage is present) and
 * was issued for signing leases (an extendedKeyUsage, when present, names more than TLS, code
 * signing, e-mail, time stamping or OCSP).
 * Validity dates are returned, not checked, so a cached result can be re-checked cheaply at
 * each use. Throws a {@link ChainError} naming the certificate at fault.
 */
export async function verifyCertificateChain(
  x5c: unknown,
  anchors: readonly TrustAnchor[],
): Promise<VerifiedPath> {
  if (!Array.isArray(x5c) || x5c.length === 0) {
    throw new ChainError('the JWK has no x5c certificate chain');
  }
  if (x5c.length > MAX_CHAIN_LENGTH) {
    throw new ChainError(`x5c has ${x5c.length} certificates, more than ${MAX_CHAIN_LENGTH}`);
  }
  const certs = x5c.map((entry, index) => {
    try {
      if (typeof entry !== 'string') throw new TypeError('not a string');
      return parseCertificate(decodeBase64(entry));
    } catch (cause) {
      throw new ChainError(`x5c[${index}] is not a base64 DER certificate`, { cause });
    }
  });
  const labels = certs.map((_, index) => `x5c[${index}]`);

  const last = certs[certs.length - 1]!;
  let anchor = anchors.find((candidate) => sameBytes(candidate.der, last.der));
  const path = [...certs];
  if (anchor) {
    labels[labels.length - 1] = 'embedded root';
  } else {
    for (const candidate of anchors) {
      if (
        sameBytes(candidate.cert.subjectDer, last.issuerDer) &&
        (await signedBy(last, candidate.cert, labels[labels.length - 1]!))
      ) {
        anchor = candidate;
        break;
      }
    }
    if (!anchor) {
      throw new ChainError(
        `the chain ends at ${labels[labels.length - 1]} (${last.subject}, issued by ${last.issuer}), which is neither an embedded root nor signed by one`,
      );
    }
    path.push(anchor.cert);
    labels.push('embedded root');
  }

  for (let i = 0; i < path.length - 1; i++) {
    const cert = path[i]!;
    const issuer = path[i + 1]!;
    assertNoUnknownCritical(cert, labels[i]!);
    if (!sameBytes(cert.issuerDer, issuer.subjectDer)) {
      throw new ChainError(
        `${labels[i]} is issued by ${cert.issuer}, but the next certificate is ${issuer.subject}`,
      );
    }
    assertMayIssue(issuer, labels[i + 1]!, i);
    if (!(await signedBy(cert, issuer, labels[i]!))) {
      throw new ChainError(`the signature of ${labels[i]} (${cert.subject}) does not verify`);
    }
  }

  const leaf = certs[0]!;
  if (leaf.keyUsage !== undefined && (leaf.keyUsage & KEY_USAGE.digitalSignature) === 0) {
    throw new ChainError(`x5c[0] (${leaf.subject}) lacks the digitalSignature key usage`);
  }
  assertMaySignLeases(leaf);

  return {
    leaf,
    anchor,
    validity: path.map((cert, index) => ({
      label: labels[index]!,
      subject: cert.subject,
      notBefore: cert.notBefore.getTime(),
      notAfter: cert.notAfter.getTime(),
    })),
  };
}

/** Throws a {@link ChainError} unless every certificate is valid at `now` (± `toleranceMs`). */
export function assertPathValidAt(
  validity: readonly PathValidity[],
  now: number,
  toleranceMs: number,
): void {
  for (const entry of validity) {
    if (now + toleranceMs < entry.notBefore) {
      throw new ChainError(
        `${entry.label} (${entry.subject}) is not valid before ${new Date(entry.notBefore).toISOString()}`,
        { failure: 'certificate-not-yet-valid' },
      );
    }
    if (now - toleranceMs > entry.notAfter) {
      throw new ChainError(
        `${entry.label} (${entry.subject}) expired at ${new Date(entry.notAfter).toISOString()}`,
        { failure: 'certificate-expired' },
      );
    }
  }
}
