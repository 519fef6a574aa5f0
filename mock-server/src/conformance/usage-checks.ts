import { randomUUID } from 'node:crypto';
import { ensure, ensureEqual } from './expect.js';
import { type DecodedJws, decodeJws } from './jwt.js';
import { type Check, type CheckContext, CheckFailure } from './runner.js';
import { requireActive, tokensOf } from './standby-checks.js';

const SECTION = 'Standby: usage events';

/** How long an event may take from the standby's answer to the event service, in ms. */
const DELIVERY_TIMEOUT_MS = 10_000;

/** The standby's event kinds (DECISIONS "Outage usage"). */
type UsageEventType = 'StandbyLeaseGranted' | 'StandbyLeaseRenewed' | 'StandbyLeaseReleased';

interface UsageEvent {
  eventId: string;
  eventType: string;
  eventSourceId: string;
  eventObjectType?: string;
  eventObjectId?: string;
  data?: Record<string, unknown>;
}

/** An ID token for this check alone (a unique `sub` when a signer is given), and its `sub`. */
async function caller(ctx: CheckContext, claims: Record<string, unknown> = {}) {
  if (ctx.signIdToken) {
    const sub = `conformance-usage-${randomUUID().slice(0, 8)}`;
    return { token: await ctx.signIdToken({ sub, ...claims }), sub };
  }
  const token = await ctx.validIdToken();
  const sub = decodeJws(token).payload.sub;
  ensure(typeof sub === 'string' && sub !== '', 'the --id-token has no sub');
  return { token, sub };
}

/** The consumer id the standby names a caller by: its `sub`, `/` written `%2F` (`%` `%25`). */
function consumerOf(sub: string): string {
  return sub.replaceAll('%', '%25').replaceAll('/', '%2F');
}

async function lease(
  ctx: CheckContext,
  authorization: string,
  query: string,
  count: number,
): Promise<DecodedJws[]> {
  const res = await ctx.fetch(`${ctx.standbyUrl}/authz/.jwt?${query}`, {
    headers: { authorization },
  });
  return tokensOf(res, `GET /authz/.jwt?${query}`, count);
}

/** The newest events (up to 10 000) of a feed of the event service. */
async function readFeed(ctx: CheckContext, feed: string): Promise<UsageEvent[]> {
  const path = feed.split('/').map(encodeURIComponent).join('/');
  const res = await ctx.fetch(`${ctx.eventUrl}/get/${path}?maxEventCount=10000`, {
    headers: { authorization: `Bearer ${await ctx.validReadToken()}` },
  });
  if (res.status !== 200) {
    throw new CheckFailure(
      `GET /get/${path}: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`,
    );
  }
  const body = (await res.json()) as { objects?: Array<UsageEvent & { instruction?: string }> };
  return (body.objects ?? []).filter((object) => object.eventType !== 'instruction');
}

/**
 * Waits until the feed holds, for each `[type, leaseId]`, at least one standby event of that kind
 * and lease, and returns them (every match, so duplicates show).
 */
async function waitForEvents(
  ctx: CheckContext,
  feed: string,
  wanted: ReadonlyArray<readonly [UsageEventType, string]>,
): Promise<Map<string, UsageEvent[]>> {
  const deadline = Date.now() + DELIVERY_TIMEOUT_MS;
  for (;;) {
    const events = await readFeed(ctx, feed);
    const found = new Map<string, UsageEvent[]>();
    for (const [type, leaseId] of wanted) {
      found.set(
        `${type} ${leaseId}`,
        events.filter(
          (event) =>
            event.eventSourceId === 'standby' &&
            event.eventType === type &&
            event.data?.leaseId === leaseId,
        ),
      );
    }
    const missing = wanted.filter(
      ([type, leaseId]) => found.get(`${type} ${leaseId}`)!.length === 0,
    );
    if (missing.length === 0) return found;
    if (Date.now() > deadline) {
      throw new CheckFailure(
        `feed ${feed} has no ${missing.map(([type, id]) => `${type} for lease ${id}`).join(', ')} ${DELIVERY_TIMEOUT_MS / 1000} s after the answers`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The one event of `events` (a duplicate is another check's failure: the first is taken). */
function first(found: Map<string, UsageEvent[]>, type: UsageEventType, leaseId: string) {
  return found.get(`${type} ${leaseId}`)![0]!;
}

/** Checks a grant or renewal event against the token it answered with. */
function ensureLeaseEvent(
  event: UsageEvent,
  token: DecodedJws,
  item: string,
  expected: { consumer: string; authorization: string; echo: Record<string, string> },
  what: string,
): void {
  ensureEqual(event.eventObjectType, 'consumer', `${what}: eventObjectType`);
  ensureEqual(event.eventObjectId, expected.consumer, `${what}: eventObjectId`);
  const data = event.data ?? {};
  ensureEqual(data.leaseId, token.payload.jti, `${what}: data.leaseId vs the token's jti`);
  ensureEqual(data.licenseId, token.payload.lic, `${what}: data.licenseId vs the token's lic`);
  ensureEqual(data.licensedItemName, item, `${what}: data.licensedItemName`);
  ensureEqual(data.iat, token.payload.iat, `${what}: data.iat vs the token's iat`);
  ensureEqual(data.exp, token.payload.exp, `${what}: data.exp vs the token's exp`);
  for (const [field, value] of Object.entries(expected.echo)) {
    ensureEqual(data[field], value, `${what}: data.${field} (as the request carried it)`);
  }
  ensureEqual(data.authorization, expected.authorization, `${what}: data.authorization`);
  const grace = data.idTokenGraceSeconds;
  ensure(
    Number.isInteger(grace) && (grace as number) >= 0 && (grace as number) <= 86_400,
    `${what}: data.idTokenGraceSeconds is ${JSON.stringify(grace)}, not an integer from 0 to 86400`,
  );
}

/**
 * Black-box checks of the standby's usage events (DECISIONS "Outage usage"): every lease it
 * grants, renews or releases reaches the event service as one event, with the fields the
 * decision names. They need the event service and a read credential besides the standby;
 * without them they are skipped, naming the options.
 */
export const usageChecks: Check[] = [
  {
    id: 'standby.usage.grant-events',
    section: SECTION,
    service: 'standby',
    rule: "each item granted is one StandbyLeaseGranted in the standby feed and the consumer's feed, with the lease's ids and times and the request's hw, process and version",
    needs: ['events', 'eventReader'],
    async run(ctx) {
      await requireActive(ctx);
      const { token, sub } = await caller(ctx);
      const consumer = consumerOf(sub);
      const echo = {
        hw: 'conformance-hw',
        hwName: 'Conformance rig',
        process: 'kit',
        version: '4.2',
      };
      const tokens = await lease(
        ctx,
        `IdToken ${token}`,
        'ItemU1&ItemU2&hw=conformance-hw;name=Conformance%20rig&process=kit&version=4.2',
        2,
      );
      const ids = tokens.map((t) => t.payload.jti as string);
      const wanted = ids.map((id) => ['StandbyLeaseGranted', id] as const);
      const own = await waitForEvents(ctx, `consumer/${consumer}`, wanted);
      const expected = { consumer, authorization: 'IdToken', echo };
      tokens.forEach((t, i) => {
        const event = first(own, 'StandbyLeaseGranted', ids[i]!);
        ensureLeaseEvent(
          event,
          t,
          i === 0 ? 'ItemU1' : 'ItemU2',
          expected,
          `grant of item ${i + 1}`,
        );
      });
      // The same events, by eventId, in the standby's own feed.
      const standby = await waitForEvents(ctx, 'standby', wanted);
      for (const id of ids) {
        ensureEqual(
          first(standby, 'StandbyLeaseGranted', id).eventId,
          first(own, 'StandbyLeaseGranted', id).eventId,
          `the standby feed's event of lease ${id}`,
        );
      }
    },
  },
  {
    id: 'standby.usage.renew-and-release-events',
    section: SECTION,
    service: 'standby',
    rule: 'a renewal is one StandbyLeaseRenewed with the lease id kept; a release is one StandbyLeaseReleased per lease id, naming the released lease',
    needs: ['events', 'eventReader'],
    async run(ctx) {
      await requireActive(ctx);
      const { token, sub } = await caller(ctx);
      const consumer = consumerOf(sub);
      const authorization = `IdToken ${token}`;
      const [granted] = await lease(ctx, authorization, 'ItemU3', 1);
      const leaseId = granted!.payload.jti as string;
      const [renewed] = await lease(ctx, authorization, `ItemU3=;leaseId=${leaseId}`, 1);
      ensureEqual(renewed!.payload.jti, leaseId, "the renewed token's jti");
      await lease(ctx, authorization, `release&${leaseId}`, 1);
      const found = await waitForEvents(ctx, `consumer/${consumer}`, [
        ['StandbyLeaseRenewed', leaseId],
        ['StandbyLeaseReleased', leaseId],
      ]);
      const expected = { consumer, authorization: 'IdToken', echo: {} };
      ensureLeaseEvent(
        first(found, 'StandbyLeaseRenewed', leaseId),
        renewed!,
        'ItemU3',
        expected,
        'renewal',
      );
      const release = first(found, 'StandbyLeaseReleased', leaseId);
      ensureEqual(release.eventObjectId, consumer, 'release: eventObjectId');
      const data = release.data ?? {};
      ensureEqual(data.authorization, 'IdToken', 'release: data.authorization');
      // The released lease, when the deployment knows it (it granted it a moment ago).
      for (const [field, value] of [
        ['licensedItemName', 'ItemU3'],
        ['licenseId', renewed!.payload.lic],
        ['exp', renewed!.payload.exp],
      ] as const) {
        if (data[field] !== undefined) ensureEqual(data[field], value, `release: data.${field}`);
      }
    },
  },
  {
    id: 'standby.usage.exactly-once',
    section: SECTION,
    service: 'standby',
    rule: 'each grant, renewal and release is written once: no event id and no (kind, lease id) twice',
    needs: ['events', 'eventReader'],
    async run(ctx) {
      await requireActive(ctx);
      const { token, sub } = await caller(ctx);
      const consumer = consumerOf(sub);
      const authorization = `IdToken ${token}`;
      const tokens = await lease(ctx, authorization, 'ItemU4&ItemU5&ItemU6', 3);
      const ids = tokens.map((t) => t.payload.jti as string);
      await lease(ctx, authorization, `ItemU4=;leaseId=${ids[0]}`, 1);
      await lease(ctx, authorization, `release&${ids[1]}`, 1);
      await waitForEvents(ctx, `consumer/${consumer}`, [
        ...ids.map((id) => ['StandbyLeaseGranted', id] as const),
        ['StandbyLeaseRenewed', ids[0]!],
        ['StandbyLeaseReleased', ids[1]!],
      ]);
      // A delivery written twice would show within a moment of the first.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const events = (await readFeed(ctx, `consumer/${consumer}`)).filter(
        (event) => event.eventSourceId === 'standby',
      );
      ensureEqual(events.length, 5, `standby events in consumer/${consumer}`);
      ensureEqual(new Set(events.map((e) => e.eventId)).size, 5, 'distinct event ids');
      const keys = events.map((e) => `${e.eventType} ${String(e.data?.leaseId)}`);
      ensureEqual(new Set(keys).size, 5, 'distinct (kind, lease id) pairs');
    },
  },
  {
    id: 'standby.usage.service-key-consumer',
    section: SECTION,
    service: 'standby',
    rule: 'a ServiceKeyHash caller is the consumer service-key-<first 16 hex digits>, authorization ServiceKeyHash',
    needs: ['serviceKeyHash', 'events', 'eventReader'],
    async run(ctx) {
      await requireActive(ctx);
      const hash = ctx.serviceKeyHash!.toLowerCase();
      const [token] = await lease(ctx, `ServiceKeyHash ${hash}`, 'ItemU7', 1);
      const leaseId = token!.payload.jti as string;
      const consumer = `service-key-${hash.slice(0, 16)}`;
      const found = await waitForEvents(ctx, `consumer/${consumer}`, [
        ['StandbyLeaseGranted', leaseId],
      ]);
      ensureLeaseEvent(
        first(found, 'StandbyLeaseGranted', leaseId),
        token!,
        'ItemU7',
        { consumer, authorization: 'ServiceKeyHash', echo: {} },
        'grant to a service',
      );
    },
  },
  {
    id: 'standby.usage.grace-seconds',
    section: SECTION,
    service: 'standby',
    rule: "a grant to an ID token 2 h past its exp says idTokenGraceSeconds of about 7200 (the token's age past exp)",
    needs: ['idTokenSigner', 'events', 'eventReader'],
    async run(ctx) {
      await requireActive(ctx);
      const now = Math.floor(Date.now() / 1000);
      const { token, sub } = await caller(ctx, { iat: now - 3 * 3600, exp: now - 2 * 3600 });
      const [granted] = await lease(ctx, `IdToken ${token}`, 'ItemU8', 1);
      const leaseId = granted!.payload.jti as string;
      const found = await waitForEvents(ctx, `consumer/${consumerOf(sub)}`, [
        ['StandbyLeaseGranted', leaseId],
      ]);
      const grace = first(found, 'StandbyLeaseGranted', leaseId).data?.idTokenGraceSeconds;
      // The standby's clock and this machine's may differ a little; a minute either way.
      ensure(
        typeof grace === 'number' && Math.abs(grace - 7200) <= 60,
        `data.idTokenGraceSeconds is ${JSON.stringify(grace)}, expected about 7200`,
      );
    },
  },
];
