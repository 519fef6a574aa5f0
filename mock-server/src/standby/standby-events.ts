import { randomUUID } from 'node:crypto';
import { type AuthzRequest, STANDBY_EVENT_SOURCE } from '@standby-licensing/wire';
import type { Caller } from '../auth/authenticate.js';
import type { EventStore } from '../store/event-store.js';
import type { Outbox, OutboxEvent } from '../store/outbox.js';

/** `eventSourceId` of every event the standby writes (docs/protocol.md "Events of the standby"). */
export { STANDBY_EVENT_SOURCE };

/** `eventObjectType` of the standby's events: the caller the lease went to. */
export const CONSUMER_OBJECT_TYPE = 'consumer';

/** The kinds of the standby's events: one per lease granted, renewed or released. */
export type StandbyEventType =
  | 'StandbyLeaseGranted'
  | 'StandbyLeaseRenewed'
  | 'StandbyLeaseReleased';

/** Who a standby answer went to, as its events name them. */
export interface StandbyConsumer {
  /**
   * `eventObjectId`: the ID token's `sub`, or `service-key-<first 16 hex digits>` for a
   * ServiceKeyHash caller. A `/` (which no object id may hold) is written `%2F`, and `%` `%25`.
   */
  consumer: string;
  /** The scheme the caller authenticated with. */
  authorization: 'IdToken' | 'ServiceKeyHash';
  /** The ID token's `email`, when it has one. */
  email?: string;
  /** How far past its `exp` the ID token was, in seconds: 0 inside it, up to 86 400 in the grace. */
  idTokenGraceSeconds: number;
}

/** What the standby knows of a lease it granted: read for the release of it. */
export interface KnownLease {
  licenseId?: unknown;
  licensedItemName?: unknown;
  iat?: unknown;
  exp?: unknown;
}

/**
 * The consumer of a standby answer: who the caller is (`sub`, or the ServiceKeyHash's first 16
 * hex digits), how, and how deep in the ID-token grace the request came (`nowMs` the server
 * clock).
 *
 * @example
 * const consumer = standbyConsumerOf(request.caller!, app.clock.now());
 */
export function standbyConsumerOf(caller: Caller, nowMs: number): StandbyConsumer {
  if (caller.scheme === 'ServiceKeyHash') {
    return {
      consumer: `service-key-${(caller.keyHash ?? '').slice(0, 16)}`,
      authorization: 'ServiceKeyHash',
      idTokenGraceSeconds: 0,
    };
  }
  const exp = caller.claims?.exp;
  const past = typeof exp === 'number' ? Math.floor(nowMs / 1000) - exp : 0;
  const email = caller.claims?.email;
  return {
    consumer: caller.sub.replaceAll('%', '%25').replaceAll('/', '%2F'),
    authorization: 'IdToken',
    ...(typeof email === 'string' ? { email } : {}),
    idTokenGraceSeconds: Math.max(0, past),
  };
}

function event(
  eventType: StandbyEventType,
  consumer: StandbyConsumer,
  data: Record<string, unknown>,
): OutboxEvent {
  return {
    eventId: randomUUID(),
    eventType,
    eventSourceId: STANDBY_EVENT_SOURCE,
    eventObjectType: CONSUMER_OBJECT_TYPE,
    eventObjectId: consumer.consumer,
    data,
  };
}

/**
 * The events of one standby `/authz/.jwt` answer, one per item (DECISIONS "Outage usage"):
 * `StandbyLeaseGranted` for an item consumed, `StandbyLeaseRenewed` for one that named its lease,
 * `StandbyLeaseReleased` for each released lease id. `data` holds `leaseId`, `licenseId`,
 * `licensedItemName`, `iat` and `exp` of the lease (for a release those of the released lease,
 * from `known`, when the standby knows it), the request's `hw`, `hwName`, `process` and `version`,
 * the caller's `email`, `authorization` and `idTokenGraceSeconds`.
 *
 * @param claims - the answer's token claims, one object per item in request order
 * @param known - looks up a lease this consumer was granted, for a release
 * @example
 * const events = standbyLeaseEvents(parsed, claims, consumer, (id) => leases.find(consumer, id));
 */
export function standbyLeaseEvents(
  request: AuthzRequest,
  claims: readonly Record<string, unknown>[],
  consumer: StandbyConsumer,
  known: (leaseId: string) => KnownLease | undefined = () => undefined,
): OutboxEvent[] {
  const { hw, hwName, process, version } = request.echo;
  const caller = {
    ...(hw === undefined ? {} : { hw }),
    ...(hwName === undefined ? {} : { hwName }),
    ...(process === undefined ? {} : { process }),
    ...(version === undefined ? {} : { version }),
    ...(consumer.email === undefined ? {} : { email: consumer.email }),
    authorization: consumer.authorization,
    idTokenGraceSeconds: consumer.idTokenGraceSeconds,
  };
  if (request.release) {
    return request.release.map((leaseId) => {
      const lease = known(leaseId) ?? {};
      const fields: Record<string, unknown> = { leaseId };
      for (const name of ['licenseId', 'licensedItemName', 'iat', 'exp'] as const) {
        if (lease[name] !== undefined) fields[name] = lease[name];
      }
      return event('StandbyLeaseReleased', consumer, { ...fields, ...caller });
    });
  }
  return request.items.map((item, i) => {
    const token = claims[i]!;
    return event(
      item.leaseId === undefined ? 'StandbyLeaseGranted' : 'StandbyLeaseRenewed',
      consumer,
      {
        leaseId: token.jti,
        licenseId: token.lic,
        licensedItemName: item.name,
        iat: token.iat,
        exp: token.exp,
        ...caller,
      },
    );
  });
}

/** How far back a release looks for the lease in its consumer's feed, in events. */
const LOOKUP_DEPTH = 10_000;

/**
 * Finds what the standby granted as lease `leaseId` to `consumer`: in the events still waiting in
 * `outbox`, then in the newest {@link LOOKUP_DEPTH} events of the consumer's feed. Undefined when
 * the standby never granted it (a lease main granted, released here) or it is older than that.
 *
 * @example
 * const lease = findStandbyLease(app.standbyOutbox, app.eventStore, 'alice', 'J1');
 */
export function findStandbyLease(
  outbox: Outbox,
  events: EventStore,
  consumer: string,
  leaseId: string,
): KnownLease | undefined {
  const matches = (event: { eventSourceId?: unknown; eventObjectId?: unknown; data?: unknown }) =>
    event.eventSourceId === STANDBY_EVENT_SOURCE &&
    event.eventObjectId === consumer &&
    typeof event.data === 'object' &&
    event.data !== null &&
    (event.data as KnownLease & { leaseId?: unknown }).leaseId === leaseId &&
    (event.data as KnownLease).licensedItemName !== undefined;
  const waiting = outbox.outbox();
  for (let i = waiting.length - 1; i >= 0; i--) {
    const entry = waiting[i]!.events;
    for (let j = entry.length - 1; j >= 0; j--) {
      if (matches(entry[j]!)) return entry[j]!.data as KnownLease;
    }
  }
  const feed = events.feed(`${CONSUMER_OBJECT_TYPE}/${consumer}`);
  if (!feed) return undefined;
  const oldest = Math.max(0, feed.size - LOOKUP_DEPTH);
  const quoted = JSON.stringify(leaseId);
  for (let i = feed.size - 1; i >= oldest; i--) {
    const { text } = feed.at(i);
    if (!text.includes(quoted)) continue;
    const stored = JSON.parse(text) as { eventSourceId?: unknown; data?: unknown };
    if (matches(stored)) return stored.data as KnownLease;
  }
  return undefined;
}
