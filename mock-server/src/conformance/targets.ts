import { createHash, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { startServer } from '../server.js';
import { signJws } from './jwt.js';
import type { ConformanceTarget } from './runner.js';

/** Signers over private keys, as the CLI builds them from `--*-private-key` files. */
export interface SignerKeys {
  idpKey?: KeyObject;
  idpKeyId?: string;
  issuer?: string;
  clientId?: string;
  readerKey?: KeyObject;
  writerKey?: KeyObject;
}

/** Adds the ID-token, read-token and event signers that the given private keys allow. */
export function withSigners(target: ConformanceTarget, keys: SignerKeys): ConformanceTarget {
  const out: ConformanceTarget = { ...target };
  const { idpKey, readerKey, writerKey } = keys;
  if (idpKey && keys.issuer && keys.clientId) {
    const { issuer, clientId } = keys;
    out.issuer = issuer;
    out.clientId = clientId;
    out.signIdToken = async (claims, header = {}) => {
      const now = Math.floor(Date.now() / 1000);
      const payload = {
        iss: issuer,
        sub: 'conformance-user',
        aud: [clientId],
        iat: now,
        exp: now + 3600,
        ...claims,
      };
      return signJws(
        { typ: 'JWT', ...(keys.idpKeyId ? { kid: keys.idpKeyId } : {}), ...header },
        payload,
        idpKey,
      );
    };
  }
  if (readerKey) out.signReadToken = async (claims) => signJws({ typ: 'JWT' }, claims, readerKey);
  if (writerKey) out.signEvents = async (body, header = {}) => signJws(header, body, writerKey);
  return out;
}

function rsaKeyPair(): { privateKey: KeyObject; publicPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { privateKey, publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

/**
 * Starts the mock server on a free loopback port with freshly generated issuer, reader and writer
 * keys, and returns a target that may use all of them (management allowed).
 */
export async function startMockTarget(): Promise<{
  target: ConformanceTarget;
  close(): Promise<void>;
}> {
  const idp = rsaKeyPair();
  const reader = rsaKeyPair();
  const writer = rsaKeyPair();
  const issuer = 'https://conformance-issuer.test';
  const apiKey = 'conformance-api-key';
  const server = await startServer({
    port: 0,
    apiKey,
    issuer,
    clientId: 'conformance-client',
    idpPublicKeys: [idp.publicPem],
    eventReaderKeys: [reader.publicPem],
    eventWriterKeys: [writer.publicPem],
    requireSignedEvents: true,
  });
  const mainKeyPem = (await server.app.keyring.get('main')).publicPem;
  const target = withSigners(
    {
      standbyUrl: server.info.standbyUrl,
      eventUrl: server.info.eventUrl,
      apiKey,
      serviceKeyHash: createHash('sha256').update(mainKeyPem).digest('hex'),
      allowManagement: true,
    },
    {
      idpKey: idp.privateKey,
      issuer,
      clientId: 'conformance-client',
      readerKey: reader.privateKey,
      writerKey: writer.privateKey,
    },
  );
  return { target, close: () => server.close() };
}
