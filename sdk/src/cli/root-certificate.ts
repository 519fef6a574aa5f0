import { type CertificateInfo, parseCertificate, sameBytes } from '../internal/certificate.js';
import { parsePemBlocks } from '../internal/pem.js';

/** A root certificate ready to embed, with what the generated module's comments say about it. */
export interface RootCertificateInfo {
  /** PEM text of the certificate block, `\n` line ends, no surrounding whitespace. */
  pem: string;
  subject: string;
  issuer: string;
  notBefore: Date;
  notAfter: Date;
  /** True when the certificate's basic constraints mark it as a CA. */
  isCa: boolean;
  /** True when subject and issuer are the same name. */
  selfIssued: boolean;
}

const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** Parses one PEM certificate block. Throws a TypeError when it is not a certificate. */
export function describeCertificate(pemBlock: string): RootCertificateInfo {
  const pem = pemBlock.replace(/\r\n?/g, '\n').trim();
  const [block] = parsePemBlocks(pem);
  let certificate: CertificateInfo;
  try {
    certificate = parseCertificate(block!.der);
  } catch (error) {
    throw new TypeError('the PEM block is not a valid X.509 certificate', { cause: error });
  }
  return {
    pem,
    subject: certificate.subject,
    issuer: certificate.issuer,
    notBefore: certificate.notBefore,
    notAfter: certificate.notAfter,
    isCa: certificate.basicConstraints?.ca === true,
    selfIssued: sameBytes(certificate.subjectDer, certificate.issuerDer),
  };
}

/**
 * The root certificate in a PEM text: its only certificate, or, when it holds a chain, the one
 * self-issued CA certificate in it. Throws a TypeError when there is none or it is ambiguous.
 */
export function findRootCertificate(text: string): RootCertificateInfo {
  const blocks = text.match(CERTIFICATE_BLOCK) ?? [];
  if (blocks.length === 0) throw new TypeError('no "BEGIN CERTIFICATE" block found');
  const certificates = blocks.map(describeCertificate);
  if (certificates.length === 1) return certificates[0]!;
  const roots = certificates.filter((cert) => cert.selfIssued && cert.isCa);
  if (roots.length !== 1) {
    throw new TypeError(
      `found ${certificates.length} certificates and ${roots.length} self-issued CA among them; give a file with the one root certificate`,
    );
  }
  return roots[0]!;
}
