import type { FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify';
import { isTruncated } from './fault-hook.js';
import type { MockMetrics } from './metrics.js';
import type { RequestLog, RequestLogEntry, RequestOutcome } from './request-log.js';

const SERVICES = new Set(['main', 'standby', 'events', 'idp', 'admin']);
/** Routes whose 2xx answers are leases (or lease releases) issued by the service. */
const LEASE_ROUTES = new Set(['/authz/.jwt', '/authz/.json', '/licensing/actions/checkout']);
const MAX_ROUTE_LENGTH = 200;
const HW = /(?:^|&)hw=([^&]*)/;
// W3C Trace Context: version-traceid-parentid-flags; a later version may add fields after them.
const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}(?:-[^\s]*)?$/;
const ZERO_TRACE = '00000000000000000000000000000000';
const ZERO_PARENT = '0000000000000000';

/** The header when it is a valid `traceparent` (W3C Trace Context, level 1), else undefined. */
function traceparentOf(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string' || header.length > 256) return undefined;
  const value = header.trim();
  if (!TRACEPARENT.test(value) || value.startsWith('ff-')) return undefined;
  const [version, trace, parent] = value.split('-');
  if (trace === ZERO_TRACE || parent === ZERO_PARENT) return undefined;
  // Version 00 has exactly four fields.
  if (version === '00' && value.length !== 55) return undefined;
  return value;
}

function decodeHw(raw: string): string | undefined {
  let text = raw.replaceAll('+', ' ');
  try {
    text = decodeURIComponent(text);
  } catch {
    // Left as sent: the log shows what came, the route refuses it.
  }
  const id = text.split(';', 1)[0]!.slice(0, MAX_ROUTE_LENGTH);
  return id === '' ? undefined : id;
}

/**
 * The log entry of a request: its service (the first path segment), its route under the service
 * (the matched route, else the raw path, cut at 200 characters), the caller, and for licensing
 * routes the device and which service issued the lease.
 */
export function describeRequest(
  request: FastifyRequest,
  answer: { status: number | null; outcome?: RequestOutcome; ms: number },
): Omit<RequestLogEntry, 'seq'> {
  const url = request.routeOptions.url ?? request.url.split('?', 1)[0]!;
  const slash = url.indexOf('/', 1);
  const first = slash < 0 ? url.slice(1) : url.slice(1, slash);
  const service = SERVICES.has(first) ? first : 'other';
  const route = (service === 'other' ? url : slash < 0 ? '/' : url.slice(slash)).slice(
    0,
    MAX_ROUTE_LENGTH,
  );
  const raw = request.url.split('?', 1)[0]!;
  const path = (service === 'other' ? raw : raw.slice(first.length + 1) || '/').slice(
    0,
    MAX_ROUTE_LENGTH,
  );
  const entry: Omit<RequestLogEntry, 'seq'> = {
    at: Date.now(),
    service,
    method: request.method,
    route,
    path,
    status: answer.status,
    ms: Math.round(answer.ms * 10) / 10,
  };
  if (answer.outcome) entry.outcome = answer.outcome;
  const caller = request.caller?.sub;
  if (caller !== undefined) entry.caller = caller.slice(0, MAX_ROUTE_LENGTH);
  const traceparent = traceparentOf(request.headers.traceparent);
  if (traceparent !== undefined) entry.traceparent = traceparent;
  if (LEASE_ROUTES.has(route)) {
    const mark = request.url.indexOf('?');
    const hw = mark < 0 ? undefined : HW.exec(request.url.slice(mark + 1))?.[1];
    const device = hw === undefined ? undefined : decodeHw(hw);
    if (device !== undefined) entry.hw = device;
    const ok =
      answer.status !== null && answer.status >= 200 && answer.status < 300 && !answer.outcome;
    if (ok && (service === 'main' || service === 'standby')) entry.servedBy = service;
    const licensing = request.licensing;
    if (licensing) {
      entry.kind = licensing.kind;
      entry.items = licensing.items;
      entry.granted = licensing.granted;
    }
  }
  return entry;
}

/** Whether the console's own traffic: preflights and admin reads (its polls), not logged. */
function isConsoleNoise(request: FastifyRequest): boolean {
  return (
    request.method === 'OPTIONS' ||
    ((request.method === 'GET' || request.method === 'HEAD') && request.url.startsWith('/admin'))
  );
}

/** Counts `entry` in `metrics` (every request, console noise included). */
function count(
  metrics: MockMetrics | undefined,
  request: FastifyRequest,
  entry: Omit<RequestLogEntry, 'seq'>,
): void {
  metrics?.observe({
    entry,
    matched: request.routeOptions.url !== undefined,
    licensing: request.licensing,
  });
}

/**
 * An `onResponse` hook that records every answer in `log` (admin reads and preflights aside) and
 * counts every answer in `metrics`. It runs after the answer went out and does O(1) work, so the
 * lease path does not wait on it.
 *
 * @example
 * app.addHook('onResponse', createRequestLogHook(log, metrics));
 */
export function createRequestLogHook(
  log: RequestLog,
  metrics?: MockMetrics,
): onResponseHookHandler {
  return (request, reply, done) => {
    const noise = isConsoleNoise(request);
    if (!noise || metrics) {
      const answer = { status: reply.statusCode, ms: reply.elapsedTime };
      const entry = describeRequest(
        request,
        isTruncated(request) ? { ...answer, outcome: 'truncated' } : answer,
      );
      if (!noise) log.record(entry);
      count(metrics, request, entry);
    }
    done();
  };
}

/** Records (and counts) a request that got no HTTP answer (a reset, a hang, a client that left). */
export function recordUnanswered(
  log: RequestLog,
  request: FastifyRequest,
  reply: FastifyReply,
  outcome: RequestOutcome,
  metrics?: MockMetrics,
): void {
  const entry = describeRequest(request, { status: null, outcome, ms: reply.elapsedTime });
  log.record(entry);
  count(metrics, request, entry);
}
