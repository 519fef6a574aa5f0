import { compactVerify, exportJWK, exportPKCS8, generateKeyPair } from 'jose';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiResponseError } from '../errors.js';
import { createEventClient } from './create-event-client.js';
import type { NewEvent } from './put-events.js';

const eventUrl = 'http://events.test/events';
const server = setupServer();
let keys: CryptoKeyPair;
beforeAll(async () => {
  server.listen({ onUnhandledRequest: 'error' });
  keys = await generateKeyPair('RS384', { extractable: true });
});
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const event: NewEvent = { eventType: 'InvoicePaid', eventSourceId: 'billing', data: { n: 1 } };

function capture() {
  const bodies: { contentType: string | null; body: string }[] = [];
  server.use(
    http.post(`${eventUrl}/put`, async ({ request }) => {
      bodies.push({ contentType: request.headers.get('content-type'), body: await request.text() });
      return new HttpResponse(null, { status: 201 });
    }),
  );
  return bodies;
}

describe('put', () => {
  it('signs one event as a compact JWS with alg and kid, from a CryptoKey, JWK or PEM', async () => {
    const bodies = capture();
    const client = createEventClient({ eventUrl });
    const pem = await exportPKCS8(keys.privateKey);
    const jwk = await exportJWK(keys.privateKey);
    for (const privateKey of [keys.privateKey, jwk, pem]) {
      await client.put(event, { signer: { privateKey, alg: 'RS384', kid: 'w1' } });
    }
    expect(bodies).toHaveLength(3);
    for (const { contentType, body } of bodies) {
      expect(contentType).toBe('application/jose');
      const { payload, protectedHeader } = await compactVerify(body, keys.publicKey);
      expect(protectedHeader).toEqual({ alg: 'RS384', kid: 'w1' });
      expect(JSON.parse(new TextDecoder().decode(payload))).toEqual(event);
    }
  });

  it('sends a batch as a JSON array, with the client default signer', async () => {
    const bodies = capture();
    const client = createEventClient({
      eventUrl,
      signer: { privateKey: keys.privateKey, alg: 'RS384' },
    });
    const batch: NewEvent[] = [
      event,
      { ...event, eventObjectType: 'Invoice', eventObjectId: 'INV-1' },
    ];
    await client.put(batch);
    const { payload, protectedHeader } = await compactVerify(bodies[0]!.body, keys.publicKey);
    expect(protectedHeader).toEqual({ alg: 'RS384' });
    expect(JSON.parse(new TextDecoder().decode(payload))).toEqual(batch);
  });

  it.each<[string, unknown]>([
    ['no events', []],
    ['not an object', ['x']],
    ['missing eventType', { eventSourceId: 'billing' }],
    ['missing eventSourceId', { eventType: 'X' }],
    ['the reserved eventType instruction', { ...event, eventType: 'instruction' }],
    ['slash in eventSourceId', { eventType: 'X', eventSourceId: 'a/b' }],
    ['slash in eventObjectId', { ...event, eventObjectType: 'T', eventObjectId: 'a/b' }],
    ['slash in eventObjectType', { ...event, eventObjectType: 'a/b', eventObjectId: 'x' }],
    ['eventObjectId alone', { ...event, eventObjectId: 'x' }],
    ['eventObjectType alone', { ...event, eventObjectType: 'T' }],
    ['eventReceived set', { ...event, eventReceived: 1 }],
    ['eventReceived_str set', { ...event, eventReceived_str: '1' }],
    ['eventId not a UUID', { ...event, eventId: 'nope' }],
    ['a bigint in data', { ...event, data: { n: 1n } }],
    ['a bad event in a batch', [event, { ...event, eventSourceId: 'x/y' }]],
  ])('refuses %s with INVALID_ARGUMENT before sending', async (_, events) => {
    const bodies = capture();
    const client = createEventClient({
      eventUrl,
      signer: { privateKey: keys.privateKey, alg: 'RS384' },
    });
    await expect(client.put(events as NewEvent)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    expect(bodies).toHaveLength(0);
  });

  it('refuses a missing signer, a bad alg and an unusable key with INVALID_ARGUMENT', async () => {
    const client = createEventClient({ eventUrl });
    await expect(client.put(event)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(
      client.put(event, { signer: { privateKey: keys.privateKey, alg: 'ES256' as never } }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(client.put(event, { signer: { privateKey: 'not a pem' } })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });

  it('surfaces a service refusal as ApiResponseError with status, error and description', async () => {
    server.use(
      http.post(`${eventUrl}/put`, () =>
        HttpResponse.json(
          { error: 'invalid_signature', error_description: 'no writer key verifies it' },
          { status: 401 },
        ),
      ),
    );
    const client = createEventClient({
      eventUrl,
      signer: { privateKey: keys.privateKey, alg: 'RS384' },
    });
    const error = await client.put(event).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiResponseError);
    expect(error).toMatchObject({
      code: 'UNAUTHORIZED',
      status: 401,
      error: 'invalid_signature',
      errorDescription: 'no writer key verifies it',
      url: `${eventUrl}/put`,
    });
  });
});
