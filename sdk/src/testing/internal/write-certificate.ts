// X.509 certificates for the fake services' throwaway PKI, written with the ASN.1 schemas the SDK
// already reads certificates with (@peculiar/asn1-x509, @peculiar/asn1-schema) and signed with
// WebCrypto, so the testing kit runs in Node and in browsers without @peculiar/x509 and its
// reflect-metadata (docs/decisions/0031-testing-kit-certificates.md). Private to the testing kit.
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import {
  AlgorithmIdentifier,
  AttributeTypeAndValue,
  AttributeValue,
  BasicConstraints,
  Certificate,
  Extension,
  Extensions,
  id_ce_basicConstraints,
  id_ce_keyUsage,
  id_ce_subjectKeyIdentifier,
  KeyUsage,
  KeyUsageFlags,
  Name,
  RelativeDistinguishedName,
  SubjectKeyIdentifier,
  SubjectPublicKeyInfo,
  TBSCertificate,
  Validity,
  Version,
} from '@peculiar/asn1-x509';

/** sha256WithRSAEncryption, with the NULL parameters RFC 4055 asks for. */
const SHA256_WITH_RSA = new AlgorithmIdentifier({
  algorithm: '1.2.840.113549.1.1.11',
  parameters: new Uint8Array([0x05, 0x00]).buffer,
});
const COMMON_NAME = '2.5.4.3';
const SIGNING = { name: 'RSASSA-PKCS1-v1_5' } as const;

/** What {@link writeCertificate} needs. */
export interface CertificateRequest {
  /** Common name of the subject. */
  subject: string;
  /** The issuer's common name and private key; omitted: self-signed with `keys.privateKey`. */
  issuer?: { name: string; privateKey: CryptoKey };
  /** The subject's key pair (its public key goes into the certificate). */
  keys: CryptoKeyPair;
  notBefore: Date;
  notAfter: Date;
  /** A CA (basicConstraints cA, keyCertSign and cRLSign) or a signing leaf (digitalSignature). */
  ca: boolean;
}

function nameOf(commonName: string): Name {
  return new Name([
    new RelativeDistinguishedName([
      new AttributeTypeAndValue({
        type: COMMON_NAME,
        value: new AttributeValue({ utf8String: commonName }),
      }),
    ]),
  ]);
}

function extension(extnID: string, value: unknown): Extension {
  return new Extension({
    extnID,
    critical: extnID !== id_ce_subjectKeyIdentifier,
    extnValue: new OctetString(AsnConvert.serialize(value)),
  });
}

/** A positive 16-byte serial number (the top bit clear, so DER needs no sign byte). */
function serialNumber(): ArrayBuffer {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return bytes.buffer;
}

/**
 * A DER X.509 v3 certificate for `request.keys.publicKey`, signed RS256 by the issuer's key.
 *
 * @example
 * const root = await writeCertificate({ subject: 'Root', keys, ca: true, notBefore, notAfter });
 */
export async function writeCertificate(
  request: CertificateRequest,
): Promise<Uint8Array<ArrayBuffer>> {
  const spki = await crypto.subtle.exportKey('spki', request.keys.publicKey);
  const keyIdentifier = await crypto.subtle.digest('SHA-1', spki);
  const usage = request.ca
    ? KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign
    : KeyUsageFlags.digitalSignature;
  const tbs = new TBSCertificate({
    version: Version.v3,
    serialNumber: serialNumber(),
    signature: SHA256_WITH_RSA,
    issuer: nameOf(request.issuer?.name ?? request.subject),
    validity: new Validity({ notBefore: request.notBefore, notAfter: request.notAfter }),
    subject: nameOf(request.subject),
    subjectPublicKeyInfo: AsnConvert.parse(spki, SubjectPublicKeyInfo),
    extensions: new Extensions([
      extension(id_ce_basicConstraints, new BasicConstraints({ cA: request.ca })),
      extension(id_ce_keyUsage, new KeyUsage(usage)),
      extension(id_ce_subjectKeyIdentifier, new SubjectKeyIdentifier(keyIdentifier)),
    ]),
  });
  const tbsDer = AsnConvert.serialize(tbs);
  const signer = request.issuer?.privateKey ?? request.keys.privateKey;
  const signature = await crypto.subtle.sign(SIGNING, signer, tbsDer);
  const certificate = new Certificate({
    tbsCertificate: tbs,
    signatureAlgorithm: SHA256_WITH_RSA,
    signatureValue: signature,
  });
  return new Uint8Array(AsnConvert.serialize(certificate));
}
