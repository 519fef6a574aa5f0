/**
 * write-signed-event.ts: writes a batch of events to a feed, signed with an RSA key.
 *
 * What it does:
 *   Loads an RSA private key (PKCS#8 PEM) from a file, or generates a fresh one, and writes a
 *   batch of `LicenseProvisioned` events to the event data service with `put()`: one compact JWS
 *   (RS256) carrying the whole batch, stored all-or-nothing. Prints each event it wrote.
 *
 * Steps:
 *   1. Load the key from EVENT_WRITER_KEY_FILE, or generate an RSA-2048 key pair.
 *   2. Create an event client whose default signer is that key.
 *   3. `put()` the batch; the service answers 201 once every event is stored.
 *
 * Needs:
 *   - A mock server in another terminal (the walkthrough's will do): `npm run mock-server`.
 *     Started without `--event-writer-key` it trusts no writer key and accepts any signature, so
 *     a generated key works: `npx tsx examples/write-signed-event.ts`. No prior step.
 *
 * Assumptions:
 *   - To make the server check the signature, give it the public key and the example the
 *     private key:
 *       mkdir -p .walkthrough/keys   # git-ignored: the private key stays out of git
 *       openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 \
 *         -out .walkthrough/keys/writer.key.pem
 *       openssl pkey -in .walkthrough/keys/writer.key.pem -pubout -out .walkthrough/keys/writer.pub.pem
 *       npm run -s mock-server -- --event-writer-key .walkthrough/keys/writer.pub.pem
 *       EVENT_WRITER_KEY_FILE=.walkthrough/keys/writer.key.pem npx tsx examples/write-signed-event.ts
 *     A key the server does not trust is then refused: 401 `invalid_signature`, which the SDK
 *     raises as a LicensingError with code UNAUTHORIZED.
 *   - Environment (all optional): EVENT_URL (default http://127.0.0.1:8787/events),
 *     EVENT_WRITER_KEY_FILE, EVENT_WRITER_KID (sent as the JWS `kid`), EVENT_SOURCE (the feed,
 *     default `examples`), EVENT_COUNT (default 3).
 *   - Run from the repo root after `npm install` (tsx maps `@standby-licensing/sdk` to source).
 */

import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { createEventClient, isLicensingError, type NewEvent } from '@standby-licensing/sdk';

/** Options of {@link main}; each defaults to its environment variable. */
export interface WriteSignedEventOptions {
  /** Base URL of the event service. Env EVENT_URL. */
  eventUrl?: string;
  /** The private key as PKCS#8 PEM text. Wins over `privateKeyFile`. */
  privateKeyPem?: string;
  /** File holding the PKCS#8 PEM private key. Env EVENT_WRITER_KEY_FILE. Default: a new key. */
  privateKeyFile?: string;
  /** `kid` header of the JWS. Env EVENT_WRITER_KID. Default: none. */
  kid?: string;
  /** The feed (`eventSourceId`). Env EVENT_SOURCE. Default `'examples'`. */
  source?: string;
  /** Events in the batch, 1 or more. Env EVENT_COUNT. Default 3. */
  count?: number;
  /** Where the example prints. Default `console.log`. */
  log?: (line: string) => void;
}

/** What was written. */
export interface WriteSignedEventResult {
  /** The events as sent, in order (each with the `eventId` the example chose). */
  written: NewEvent[];
  /** SPKI PEM of the signing key: what `--event-writer-key` needs to trust it. */
  publicKeyPem: string;
}

/** Writes one signed batch and returns it. */
export async function main(options: WriteSignedEventOptions = {}): Promise<WriteSignedEventResult> {
  const eventUrl = options.eventUrl ?? (process.env.EVENT_URL || 'http://127.0.0.1:8787/events');
  const keyFile = options.privateKeyFile ?? process.env.EVENT_WRITER_KEY_FILE;
  const kid = options.kid ?? process.env.EVENT_WRITER_KID;
  const source = options.source ?? (process.env.EVENT_SOURCE || 'examples');
  const count = options.count ?? Number(process.env.EVENT_COUNT || 3);
  const log = options.log ?? ((line: string) => console.log(line));
  if (!Number.isInteger(count) || count < 1) throw new TypeError('count must be an integer >= 1');

  // 1. The writer's key.
  const { privateKeyPem, publicKeyPem, origin } = await loadKey(options.privateKeyPem, keyFile);
  log(`signing with ${origin}${kid ? ` (kid ${kid})` : ''}`);

  // 2. The client; `put()` signs with this key unless a call passes its own signer.
  const events = createEventClient({
    eventUrl,
    signer: { privateKey: privateKeyPem, alg: 'RS256', ...(kid ? { kid } : {}) },
  });

  // 3. One batch: one JWS, stored all-or-nothing, in this order.
  const written: NewEvent[] = Array.from({ length: count }, (_, i) => ({
    eventType: 'LicenseProvisioned',
    eventSourceId: source,
    eventId: randomUUID(),
    data: { licensedItemName: `Item${String.fromCharCode(65 + (i % 26))}`, seq: i + 1 },
  }));
  await events.put(written);
  for (const event of written) {
    log(
      `wrote ${event.eventType} ${event.eventId} to feed '${source}' ${JSON.stringify(event.data)}`,
    );
  }
  return { written, publicKeyPem };
}

/** The key from PEM text, a file, or a new RSA-2048 pair, with its public half as SPKI PEM. */
async function loadKey(pem: string | undefined, file: string | undefined) {
  if (pem !== undefined || file !== undefined) {
    const privateKeyPem = pem ?? (await readFile(file!, 'utf8'));
    const { createPrivateKey, createPublicKey } = await import('node:crypto');
    const publicKeyPem = createPublicKey(createPrivateKey(privateKeyPem))
      .export({ type: 'spki', format: 'pem' })
      .toString();
    return { privateKeyPem, publicKeyPem, origin: pem !== undefined ? 'the given key' : file! };
  }
  const pair = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return {
    privateKeyPem: pair.privateKey,
    publicKeyPem: pair.publicKey,
    origin: 'a new RSA-2048 key (no EVENT_WRITER_KEY_FILE)',
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    console.error(error);
    if (isLicensingError(error) && error.code === 'UNAUTHORIZED') {
      console.error(
        'The server checks writer signatures: set EVENT_WRITER_KEY_FILE to the private key ' +
          'whose public key it was started with (--event-writer-key).',
      );
    }
    process.exitCode = 1;
  });
}
