// Test helpers for the events service: writer keys, signed writes, read tokens, feed reads.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { signCompactJws } from '../../src/crypto/jws.js';

/** A fresh RSA-2048 writer key pair and its public PEM (generate once per test file). */
export function createWriterKey(): { privateKey: KeyObject; publicPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { privateKey, publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

/** Signs `payload` as a compact JWS (RS256 unless the header says otherwise). */
export function signEvents(
  payload: unknown,
  privateKey: KeyObject,
  header: Record<string, unknown> = { alg: 'RS256' },
): string {
  return signCompactJws(header, payload, privateKey);
}

/** Mints a read JWT from the server's built-in issuer with the given claims (default `*`). */
export async function mintReadToken(
  app: FastifyInstance,
  claims: Record<string, unknown> = { '*': true },
  expiresInSeconds = 3600,
): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/idp/token',
    payload: { sub: 'reader', claims, expiresInSeconds },
  });
  return res.json().id_token as string;
}

/** Writes events as legacy JSON through `app.inject`; resolves with the status code. */
export async function putJson(app: FastifyInstance, events: unknown): Promise<number> {
  const res = await app.inject({
    method: 'POST',
    url: '/events/put',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify(events),
  });
  return res.statusCode;
}

/** A parsed feed plus its raw text. */
export interface FeedResult {
  status: number;
  text: string;
  body: {
    uri: string;
    updateUrl: string;
    count: number;
    objects: Array<Record<string, unknown>>;
  };
}

/** Reads `/events/get/<pathAndQuery>` through `app.inject`. */
export async function getFeed(
  app: FastifyInstance,
  pathAndQuery: string,
  token: string,
): Promise<FeedResult> {
  const res = await app.inject({
    method: 'GET',
    url: `/events/get/${pathAndQuery}`,
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: res.statusCode, text: res.body, body: res.json() };
}

/** The `eventReceived_str` values of the events (not instructions) of a feed body. */
export function timestampsOf(body: FeedResult['body']): string[] {
  return body.objects
    .filter((item) => item.eventType !== 'instruction')
    .map((item) => item.eventReceived_str as string);
}
