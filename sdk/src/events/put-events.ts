import { LicensingError } from '../errors.js';
import {
  type EventSigner,
  type ResolvedEventSigner,
  resolveEventSigner,
} from '../options/event-client.js';
import { classifyOutcome, EXPECT_NONE } from '../transport/classify-outcome.js';
import type { HttpSend } from '../transport/http-attempt.js';
import { loadSigning } from './load-signing.js';

/** An event to write. The service sets `eventReceived` (and `eventId` when absent). */
export interface NewEvent {
  /** The kind of event. Required. */
  eventType: string;
  /** The system that produced it. Required; no forward slash. */
  eventSourceId: string;
  /** A UUID; the service makes one when absent. */
  eventId?: string;
  /** Related object id; no forward slash; only together with `eventObjectType`. */
  eventObjectId?: string;
  /** Related object type; no forward slash; only together with `eventObjectId`. */
  eventObjectType?: string;
  /** The event data (recommended single field for it). */
  data?: unknown;
  /** Must not be set: the service stamps it. */
  eventReceived?: never;
  [field: string]: unknown;
}

/** Options of `put`. */
export interface PutOptions {
  /** Signs the batch. Default: the client's `signer`. */
  signer?: EventSigner;
  /** Aborts the request: `put` rejects with `signal.reason`. */
  signal?: AbortSignal;
}

/** What `put` needs from the client. */
export interface PutContext {
  eventUrl: string;
  /** The event client's HTTP sender (plain `fetch`, resolved at call time; ADR 0025). */
  send: HttpSend;
  now: () => number;
  timeoutMs: number;
  /** The client's default signer, validated. */
  signer: ResolvedEventSigner | undefined;
  /** Imported keys per signer object, so a reused signer is imported once. */
  keys: WeakMap<object, Promise<CryptoKey>>;
}

/** Largest request body the service takes (docs/protocol.md "Limits": 1 MiB). */
const MAX_BODY_BYTES = 1024 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Validates and signs a batch as a compact JWS, ready to POST: one event as an object, several as
 * an array. Rejects with `INVALID_ARGUMENT` before anything is sent.
 */
export async function signEventBatch(
  context: PutContext,
  events: NewEvent | readonly NewEvent[],
  signerOption: EventSigner | undefined,
): Promise<string> {
  const payload = Array.isArray(events) ? events : [events];
  if (payload.length === 0) throw invalid('put needs at least one event');
  payload.forEach(checkEvent);
  if (signerOption === undefined && context.signer === undefined) {
    throw invalid(
      'put() has no signer. Pass { signer: { privateKey, alg?, kid? } } to put() or to createEventClient().',
    );
  }
  // A signer given to the call is checked here; the client's was checked at its creation.
  const given: object = signerOption ?? (context.signer as ResolvedEventSigner);
  const signer =
    signerOption === undefined
      ? (context.signer as ResolvedEventSigner)
      : resolveEventSigner(signerOption, 'signer');
  const { alg } = signer;
  let json: string;
  try {
    json = JSON.stringify(Array.isArray(events) ? payload : payload[0]);
  } catch (cause) {
    throw new LicensingError(
      'INVALID_ARGUMENT',
      'events are not JSON-serializable. Pass events of plain JSON values (no bigint, no cycles).',
      { cause },
    );
  }
  // The signing code is loaded at first use (a lazy chunk for bundlers): reading feeds never
  // pays for it.
  const { importSigningKey, signCompactJws } = await loadSigning();
  let key = context.keys.get(given);
  if (!key) {
    key = importSigningKey(signer.privateKey, alg, 'signer.privateKey');
    context.keys.set(given, key);
    key.catch(() => context.keys.delete(given));
  }
  const jws = await signCompactJws(
    new TextEncoder().encode(json),
    { alg, ...(signer.kid === undefined ? {} : { kid: signer.kid }) },
    await key,
  );
  if (jws.length > MAX_BODY_BYTES) {
    throw invalid(
      `the signed batch is ${jws.length} bytes; the service takes at most 1 MiB. Split the events into smaller batches (putAll).`,
    );
  }
  return jws;
}

/** POSTs a signed batch to `<eventUrl>/put`; resolves on 201, rejects with the mapped error. */
export async function postEventBatch(
  context: PutContext,
  jws: string,
  signal: AbortSignal | undefined,
): Promise<void> {
  const outcome = await context.send({
    url: `${context.eventUrl}/put`,
    method: 'POST',
    headers: { 'Content-Type': 'application/jose', Accept: 'application/json' },
    body: jws,
    timeoutMs: context.timeoutMs,
    signal,
  });
  if (outcome.kind === 'response' && outcome.status === 201) return;
  const verdict = classifyOutcome(outcome, {
    service: 'events',
    expect: EXPECT_NONE,
    now: context.now(),
    timeoutMs: context.timeoutMs,
  });
  if (!verdict.ok) throw verdict.error;
  throw new LicensingError(
    'SERVICE_UNAVAILABLE',
    `The event service answered HTTP ${outcome.kind === 'response' ? outcome.status : '?'} instead of 201 (${context.eventUrl}/put). Check eventUrl: it must be the event service's base URL.`,
  );
}

/**
 * Validates, signs (compact JWS) and POSTs events to `<eventUrl>/put`. One event is sent as an
 * object, several as an array; the service stores a batch all-or-nothing.
 */
export async function putEvents(
  context: PutContext,
  events: NewEvent | readonly NewEvent[],
  options: PutOptions = {},
): Promise<void> {
  const jws = await signEventBatch(context, events, options.signer);
  await postEventBatch(context, jws, options.signal);
}

/** Refuses, before sending, what the service would refuse with 400 `invalid_request`. */
function checkEvent(event: unknown, index: number): void {
  const at = `events[${index}]`;
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    throw invalid(`${at} must be an object`);
  }
  const record = event as Record<string, unknown>;
  if (typeof record.eventType !== 'string' || record.eventType.length === 0) {
    throw invalid(`${at}.eventType must be a non-empty string`);
  }
  if (record.eventType === 'instruction') {
    throw invalid(`${at}.eventType 'instruction' is reserved for feed paging instructions`);
  }
  checkId(record, 'eventSourceId', at, true);
  checkId(record, 'eventObjectId', at, false);
  checkId(record, 'eventObjectType', at, false);
  if ((record.eventObjectId === undefined) !== (record.eventObjectType === undefined)) {
    throw invalid(`${at}: eventObjectId and eventObjectType go together`);
  }
  if ('eventReceived' in record || 'eventReceived_str' in record) {
    throw invalid(`${at}.eventReceived must not be set: the service stamps it`);
  }
  if (
    record.eventId !== undefined &&
    (typeof record.eventId !== 'string' || !UUID.test(record.eventId))
  ) {
    throw invalid(`${at}.eventId must be a UUID`);
  }
}

function checkId(record: Record<string, unknown>, field: string, at: string, required: boolean) {
  const value = record[field];
  if (value === undefined && !required) return;
  if (typeof value !== 'string' || value.length === 0) {
    throw invalid(`${at}.${field} must be a non-empty string`);
  }
  if (value.includes('/')) throw invalid(`${at}.${field} must not contain a forward slash`);
}

function invalid(message: string): LicensingError {
  const advice = message.endsWith('.') ? '' : '. Fix the events passed to put().';
  return new LicensingError('INVALID_ARGUMENT', `${message}${advice}`);
}
