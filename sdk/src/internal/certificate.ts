// X.509 certificates for the runtime-agnostic SDK: parsed with the ASN.1 schemas that
// @peculiar/x509 itself is built on (asn1js, @peculiar/asn1-schema, @peculiar/asn1-x509,
// @peculiar/asn1-ecc), signatures checked with WebCrypto. Unlike @peculiar/x509 this needs no
// Reflect metadata polyfill, no dependency-injection container and no import-time set-up, so a
// bundle that does not verify leases drops all of it (docs/decisions/0019-x509-without-peculiar-x509.md).
import { ECDSASigValue, ECParameters } from '@peculiar/asn1-ecc';
import { AsnParser } from '@peculiar/asn1-schema';
import {
  BasicConstraints,
  Certificate,
  ExtendedKeyUsage,
  id_ce_authorityKeyIdentifier,
  id_ce_basicConstraints,
  id_ce_extKeyUsage,
  id_ce_issuerAltName,
  id_ce_keyUsage,
  id_ce_subjectAltName,
  id_ce_subjectKeyIdentifier,
  KeyUsage,
  type Name,
  SubjectPublicKeyInfo,
} from '@peculiar/asn1-x509';
import { type AsnType, fromBER } from 'asn1js';
import { toHex } from './base64.js';

/** keyUsage bits (RFC 5280 4.2.1.3) as the numbers {@link CertificateInfo.keyUsage} holds. */
export const KEY_USAGE = {
  digitalSignature: 1,
  keyCertSign: 32,
  cRLSign: 64,
} as const;

/** What the SDK reads from an X.509 certificate. Byte fields are copies of the input's DER. */
export interface CertificateInfo {
  /** The whole certificate, as given. */
  der: Uint8Array<ArrayBuffer>;
  /** The subject rendered for messages, e.g. `CN=Lease signing, O=Example` (RFC 4514 style). */
  subject: string;
  /** The issuer rendered like {@link subject}. */
  issuer: string;
  /** DER of the subject Name: compare these bytes, not the rendered text. */
  subjectDer: Uint8Array<ArrayBuffer>;
  /** DER of the issuer Name. */
  issuerDer: Uint8Array<ArrayBuffer>;
  notBefore: Date;
  notAfter: Date;
  /** DER of the SubjectPublicKeyInfo (what WebCrypto's `importKey('spki', ...)` takes). */
  publicKey: Uint8Array<ArrayBuffer>;
  /** basicConstraints, when the extension is present. */
  basicConstraints?: { ca: boolean; pathLength?: number };
  /** keyUsage bits (see {@link KEY_USAGE}), when the extension is present. */
  keyUsage?: number;
  /** The purposes (OIDs) of extendedKeyUsage, when the extension is present. */
  extendedKeyUsage?: string[];
  /**
   * OIDs of the critical extensions this module does not understand: RFC 5280 4.2 says a
   * certificate carrying one must be refused.
   */
  unknownCriticalExtensions: string[];
  /** OID of the algorithm the issuer signed with. */
  signatureAlgorithm: string;
  /** DER of the signed part (tbsCertificate), exactly as in the input. */
  tbs: Uint8Array<ArrayBuffer>;
  /** The signature bits (for ECDSA, a DER `ECDSA-Sig-Value`). */
  signature: Uint8Array<ArrayBuffer>;
}

/** A certificate signed with an algorithm this module cannot check; names the OID. */
export class UnsupportedAlgorithmError extends Error {
  override name = 'UnsupportedAlgorithmError';
  /** The refused OID (signature algorithm, key algorithm or curve). */
  readonly oid: string;

  constructor(message: string, oid: string) {
    super(message);
    this.oid = oid;
  }
}

// Short attribute names as @peculiar/x509 renders them, so messages read as before.
const NAME_LABELS: Record<string, string> = {
  '2.5.4.3': 'CN',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '2.5.4.6': 'C',
  '0.9.2342.19200300.100.1.25': 'DC',
  '1.2.840.113549.1.9.1': 'E',
  '2.5.4.42': 'G',
  '2.5.4.43': 'I',
  '2.5.4.4': 'SN',
  '2.5.4.12': 'T',
};

type SignatureScheme = { name: 'RSASSA-PKCS1-v1_5' | 'ECDSA'; hash: string };

const SIGNATURE_ALGORITHMS: Record<string, SignatureScheme> = {
  '1.2.840.113549.1.1.11': { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
  '1.2.840.113549.1.1.12': { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-384' },
  '1.2.840.113549.1.1.13': { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-512' },
  '1.2.840.10045.4.3.2': { name: 'ECDSA', hash: 'SHA-256' },
  '1.2.840.10045.4.3.3': { name: 'ECDSA', hash: 'SHA-384' },
  '1.2.840.10045.4.3.4': { name: 'ECDSA', hash: 'SHA-512' },
};

// Names of algorithms met in the wild that we refuse, for a readable message.
const REFUSED_NAMES: Record<string, string> = {
  '1.2.840.113549.1.1.4': 'md5WithRSAEncryption',
  '1.2.840.113549.1.1.5': 'sha1WithRSAEncryption',
  '1.2.840.113549.1.1.10': 'RSASSA-PSS',
  '1.2.840.113549.1.1.14': 'sha224WithRSAEncryption',
  '1.2.840.10045.4.1': 'ecdsa-with-SHA1',
  '1.2.840.10045.4.3.1': 'ecdsa-with-SHA224',
  '1.3.101.112': 'Ed25519',
  '1.3.101.113': 'Ed448',
};

const RSA_ENCRYPTION = '1.2.840.113549.1.1.1';
const EC_PUBLIC_KEY = '1.2.840.10045.2.1';
/** Named curve OID → WebCrypto name and the byte length of r and s. */
const CURVES: Record<string, { namedCurve: string; size: number }> = {
  '1.2.840.10045.3.1.7': { namedCurve: 'P-256', size: 32 },
  '1.3.132.0.34': { namedCurve: 'P-384', size: 48 },
  '1.3.132.0.35': { namedCurve: 'P-521', size: 66 },
};

/** The part of an asn1js element this module reads: its tag, its input bytes, its children. */
interface DecodedElement {
  idBlock: { tagClass: number; tagNumber: number };
  valueBeforeDecodeView: Uint8Array;
  valueBlock: { value?: DecodedElement[] };
}

function decodeDer(der: Uint8Array): AsnType {
  const decoded = fromBER(der);
  if (decoded.offset === -1) throw new TypeError(`not DER: ${decoded.result.error}`);
  if (decoded.offset !== der.byteLength) throw new TypeError('trailing bytes after the DER value');
  return decoded.result;
}

function copy(bytes: Uint8Array | ArrayBuffer): Uint8Array<ArrayBuffer> {
  return new Uint8Array(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));
}

function escapeValue(value: string): string {
  // RFC 4514 2.4, as @peculiar/x509 escapes (control characters as \XX hex).
  return value
    .replace(/([,+"\\<>;])/g, '\\$1')
    .replace(/^([ #])/, '\\$1')
    .replace(/( )$/, '\\$1')
    .replace(/[\r\n\t]/g, (char) => `\\${toHex(new TextEncoder().encode(char)).toUpperCase()}`);
}

/** Renders a Name for messages: `CN=x, O=y`, multi-valued RDNs joined by `+`, in DER order. */
function renderName(name: Name): string {
  return name
    .map((rdn) =>
      rdn
        .map((attribute) => {
          const label = NAME_LABELS[attribute.type] ?? attribute.type;
          const { value } = attribute;
          const text = value.anyValue ? `#${toHex(value.anyValue)}` : escapeValue(value.toString());
          return `${label}=${text}`;
        })
        .join('+'),
    )
    .join(', ');
}

/**
 * Extensions this module reads, or whose meaning cannot change whether a key may sign leases
 * (key identifiers, alternative names): a critical one of these is understood.
 */
const UNDERSTOOD_EXTENSIONS: ReadonlySet<string> = new Set([
  id_ce_basicConstraints,
  id_ce_keyUsage,
  id_ce_extKeyUsage,
  id_ce_subjectKeyIdentifier,
  id_ce_authorityKeyIdentifier,
  id_ce_subjectAltName,
  id_ce_issuerAltName,
]);

function readExtensions(certificate: Certificate) {
  let basicConstraints: CertificateInfo['basicConstraints'];
  let keyUsage: number | undefined;
  let extendedKeyUsage: string[] | undefined;
  const unknownCriticalExtensions: string[] = [];
  // The first occurrence counts, as in @peculiar/x509's getExtension.
  for (const extension of certificate.tbsCertificate.extensions ?? []) {
    const { extnID } = extension;
    if (extension.critical && !UNDERSTOOD_EXTENSIONS.has(extnID)) {
      unknownCriticalExtensions.push(extnID);
    }
    if (extnID === id_ce_basicConstraints && basicConstraints === undefined) {
      const parsed = AsnParser.parse(extension.extnValue.buffer, BasicConstraints);
      basicConstraints = {
        ca: parsed.cA,
        ...(parsed.pathLenConstraint === undefined
          ? {}
          : { pathLength: Number(parsed.pathLenConstraint) }),
      };
    } else if (extnID === id_ce_keyUsage && keyUsage === undefined) {
      keyUsage = AsnParser.parse(extension.extnValue.buffer, KeyUsage).toNumber();
    } else if (extnID === id_ce_extKeyUsage && extendedKeyUsage === undefined) {
      extendedKeyUsage = [...AsnParser.parse(extension.extnValue.buffer, ExtendedKeyUsage)];
    }
  }
  return {
    ...(basicConstraints ? { basicConstraints } : {}),
    ...(keyUsage === undefined ? {} : { keyUsage }),
    ...(extendedKeyUsage === undefined ? {} : { extendedKeyUsage }),
    unknownCriticalExtensions,
  };
}

/**
 * Parses one DER X.509 certificate (no trailing bytes). Throws a TypeError (or the ASN.1
 * library's error) when the bytes are not a certificate.
 *
 * @example
 * const cert = parseCertificate(decodeBase64(jwk.x5c[0]));
 * cert.subject; // 'CN=Lease signing key 1'
 */
export function parseCertificate(der: Uint8Array | ArrayBuffer): CertificateInfo {
  const bytes = copy(der);
  const decoded = decodeDer(bytes);
  const certificate = AsnParser.fromASN(decoded, Certificate);
  const tbs = certificate.tbsCertificate;
  // The Names and the key as they appear in the input: the schema objects would re-encode them.
  // fromASN above already required a tbsCertificate with every field, so they are all there.
  const tbsFields = (decoded as unknown as DecodedElement).valueBlock.value![0]!.valueBlock.value!;
  const first = tbsFields[0]!;
  const offset = first.idBlock.tagClass === 3 && first.idBlock.tagNumber === 0 ? 1 : 0;
  const raw = (index: number) => copy(tbsFields[offset + index]!.valueBeforeDecodeView);
  if (tbs.signature.algorithm !== certificate.signatureAlgorithm.algorithm) {
    throw new TypeError(
      `the signature algorithm inside the certificate (${tbs.signature.algorithm}) differs from the outer one (${certificate.signatureAlgorithm.algorithm})`,
    );
  }
  return {
    der: bytes,
    subject: renderName(tbs.subject),
    issuer: renderName(tbs.issuer),
    issuerDer: raw(2),
    subjectDer: raw(4),
    publicKey: raw(5),
    notBefore: tbs.validity.notBefore.getTime(),
    notAfter: tbs.validity.notAfter.getTime(),
    ...readExtensions(certificate),
    signatureAlgorithm: certificate.signatureAlgorithm.algorithm,
    tbs: copy(certificate.tbsCertificateRaw ?? new ArrayBuffer(0)),
    signature: copy(certificate.signatureValue),
  };
}

/**
 * Checks that `der` is one DER SubjectPublicKeyInfo and returns its key algorithm OID. Throws a
 * TypeError (or the ASN.1 library's error) otherwise.
 */
export function parsePublicKeyInfo(der: Uint8Array): { algorithm: string } {
  const spki = AsnParser.fromASN(decodeDer(der), SubjectPublicKeyInfo);
  return { algorithm: spki.algorithm.algorithm };
}

/** The same bytes? */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function unsupported(kind: string, oid: string): UnsupportedAlgorithmError {
  const known = REFUSED_NAMES[oid];
  return new UnsupportedAlgorithmError(
    `unsupported ${kind} ${oid}${known ? ` (${known})` : ''}: only RSASSA-PKCS1-v1_5 and ECDSA (P-256, P-384, P-521) with SHA-256, SHA-384 or SHA-512 are accepted`,
    oid,
  );
}

/** A DER ECDSA-Sig-Value as WebCrypto's fixed-size r || s, or undefined when it cannot be one. */
function ecdsaRawSignature(der: Uint8Array, size: number): Uint8Array<ArrayBuffer> | undefined {
  const value = AsnParser.fromASN(decodeDer(der), ECDSASigValue);
  const out = new Uint8Array(2 * size);
  const parts = [new Uint8Array(value.r), new Uint8Array(value.s)];
  for (const [index, part] of parts.entries()) {
    let start = 0;
    // A zero integer leaves no digits: `out` is zero-filled already.
    while (part[start] === 0) start++;
    const digits = part.subarray(start);
    if (digits.length > size) return undefined;
    out.set(digits, (index + 1) * size - digits.length);
  }
  return out;
}

/** WebCrypto's import parameters for the issuer key, and the signature in WebCrypto's form. */
function webCryptoInputs(cert: CertificateInfo, issuerPublicKey: Uint8Array) {
  const scheme = SIGNATURE_ALGORITHMS[cert.signatureAlgorithm];
  if (!scheme) throw unsupported('signature algorithm', cert.signatureAlgorithm);
  const spki = AsnParser.fromASN(decodeDer(issuerPublicKey), SubjectPublicKeyInfo);
  const keyAlgorithm = spki.algorithm.algorithm;
  if (scheme.name === 'RSASSA-PKCS1-v1_5') {
    if (keyAlgorithm !== RSA_ENCRYPTION) return undefined;
    return {
      importParams: { name: scheme.name, hash: scheme.hash },
      verifyParams: { name: scheme.name },
      signature: cert.signature,
    };
  }
  if (keyAlgorithm !== EC_PUBLIC_KEY || !spki.algorithm.parameters) return undefined;
  const curveOid = AsnParser.parse(spki.algorithm.parameters, ECParameters).namedCurve;
  const curve = curveOid === undefined ? undefined : CURVES[curveOid];
  if (!curve) throw unsupported('elliptic curve', curveOid ?? 'with explicit parameters');
  const signature = ecdsaRawSignature(cert.signature, curve.size);
  if (!signature) return undefined;
  return {
    importParams: { name: scheme.name, namedCurve: curve.namedCurve },
    verifyParams: { name: scheme.name, hash: scheme.hash },
    signature,
  };
}

/**
 * Whether `cert` was signed by the holder of `issuerPublicKey` (SPKI DER), checked with
 * WebCrypto: RSASSA-PKCS1-v1_5 or ECDSA (P-256/384/521) with SHA-256/384/512. Resolves false
 * for a wrong signature, a key of the wrong type or a malformed signature.
 *
 * @throws UnsupportedAlgorithmError for any other signature algorithm or curve, naming its OID.
 */
export async function verifyCertificateSignature(
  cert: CertificateInfo,
  issuerPublicKey: Uint8Array,
): Promise<boolean> {
  let inputs: ReturnType<typeof webCryptoInputs>;
  try {
    inputs = webCryptoInputs(cert, issuerPublicKey);
  } catch (error) {
    if (error instanceof UnsupportedAlgorithmError) throw error;
    return false;
  }
  if (!inputs) return false;
  const subtle = globalThis.crypto.subtle;
  try {
    const key = await subtle.importKey('spki', copy(issuerPublicKey), inputs.importParams, false, [
      'verify',
    ]);
    return await subtle.verify(inputs.verifyParams, key, inputs.signature, cert.tbs);
  } catch {
    return false;
  }
}
