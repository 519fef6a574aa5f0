import type { Counter, Histogram, Registry } from 'prom-client';
import type { LicensingSummary } from '../licensing/licensing-summary.js';
import type { RequestLogEntry } from './request-log.js';

/** What the metrics read when they are scraped: state, not events. */
export interface MetricSources {
  /** Fault hits since start, by service (never decreasing). */
  faultHits(): Readonly<Record<string, number>>;
  /** Long polls parked now. */
  parkedLongPolls(): number;
  /** Events waiting in each outbox now (`main`, `standby`). */
  outboxBacklog(): Readonly<Record<string, number>>;
  /** Signing calls waiting for a worker thread now. */
  signingQueueDepth(): number;
}

/** One answered (or unanswered) request, as the metrics count it. */
export interface ObservedRequest {
  entry: Omit<RequestLogEntry, 'seq'>;
  /** Whether a route matched (else the route label is `(unmatched)`: paths are unbounded). */
  matched: boolean;
  licensing: LicensingSummary | undefined;
}

/**
 * The mock's metrics (DECISIONS "Outage usage": `/admin/metrics`), in the Prometheus text format
 * from prom-client. prom-client is loaded on the first request counted, off the start path
 * (requiring it takes about 140 ms); requests counted before it is loaded wait in a buffer and
 * are counted as soon as it is.
 */
export interface MockMetrics {
  /** Counts one request (O(1)); called by the request-log hook for every request. */
  observe(request: ObservedRequest): void;
  /** Counts events committed to the event store, by source (`main`, `standby`, `other`). */
  eventsWritten(sources: readonly string[]): void;
  /** The exposition: `text/plain; version=0.0.4` and its body. */
  render(sources: MetricSources): Promise<{ contentType: string; body: string }>;
}

/** Request duration buckets, in seconds: from a cached answer to a long poll's 60 s cap. */
const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Requests kept for counting until prom-client is loaded. */
const MAX_BUFFERED = 100_000;

/** Every metric's name starts with this. */
export const METRIC_PREFIX = 'standby_mock_';

interface Loaded {
  registry: Registry;
  requests: Counter<'service' | 'route' | 'status'>;
  duration: Histogram<'service'>;
  leases: Counter<'service' | 'kind'>;
  released: Counter<'service'>;
  events: Counter<'source'>;
}

type PromClient = typeof import('prom-client');

/**
 * Builds the metrics; nothing is loaded until the first request is counted.
 *
 * @example
 * const metrics = createMetrics();
 * app.addHook('onResponse', createRequestLogHook(requestLog, metrics));
 */
export function createMetrics(
  load: () => Promise<PromClient> = () => import('prom-client'),
): MockMetrics {
  let loaded: Loaded | undefined;
  let loading: Promise<Loaded> | undefined;
  let scheduled = false;
  let buffered: ObservedRequest[] = [];
  let bufferedEvents: string[] = [];
  // State read at scrape time (the same functions every time): set by render().
  let sources: MetricSources | undefined;

  const count = (metrics: Loaded, { entry, matched, licensing }: ObservedRequest) => {
    const status = String(entry.status ?? entry.outcome ?? 'none');
    metrics.requests.inc({
      service: entry.service,
      route: matched ? entry.route : '(unmatched)',
      status,
    });
    metrics.duration.observe({ service: entry.service }, entry.ms / 1000);
    const ok = entry.status !== null && entry.status >= 200 && entry.status < 300;
    if (!licensing || !ok || entry.outcome || !entry.servedBy) return;
    if (licensing.kind === 'release') {
      metrics.released.inc({ service: entry.servedBy }, licensing.granted);
      return;
    }
    const consumed = licensing.granted - licensing.renewed;
    if (consumed > 0) metrics.leases.inc({ service: entry.servedBy, kind: 'consume' }, consumed);
    if (licensing.renewed > 0) {
      metrics.leases.inc({ service: entry.servedBy, kind: 'renew' }, licensing.renewed);
    }
  };

  const build = (prom: PromClient): Loaded => {
    const registry = new prom.Registry();
    const name = (suffix: string) => `${METRIC_PREFIX}${suffix}`;
    const read = <T>(pick: (s: MetricSources) => T, fallback: T): T =>
      sources ? pick(sources) : fallback;
    const metrics: Loaded = {
      registry,
      requests: new prom.Counter({
        name: name('requests_total'),
        help: 'Requests answered (or left unanswered: status reset, hang, aborted), by service, route and status',
        labelNames: ['service', 'route', 'status'],
        registers: [registry],
      }),
      duration: new prom.Histogram({
        name: name('request_duration_seconds'),
        help: 'Time from a request to its answer, by service',
        labelNames: ['service'],
        buckets: DURATION_BUCKETS,
        registers: [registry],
      }),
      leases: new prom.Counter({
        name: name('leases_granted_total'),
        help: 'Leases granted (consume) or renewed (renew), by the service that answered',
        labelNames: ['service', 'kind'],
        registers: [registry],
      }),
      released: new prom.Counter({
        name: name('leases_released_total'),
        help: 'Lease ids released, by the service that answered',
        labelNames: ['service'],
        registers: [registry],
      }),
      events: new prom.Counter({
        name: name('events_written_total'),
        help: 'Events stored by the event service, by source (main, standby, other)',
        labelNames: ['source'],
        registers: [registry],
      }),
    };
    new prom.Counter({
      name: name('faults_hit_total'),
      help: 'Requests an injected fault answered (or held, or cut), by service',
      labelNames: ['service'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [service, hits] of Object.entries(read((s) => s.faultHits(), {}))) {
          this.inc({ service }, hits);
        }
      },
    });
    new prom.Gauge({
      name: name('long_polls_parked'),
      help: 'Event feed long polls parked now',
      registers: [registry],
      collect() {
        this.set(read((s) => s.parkedLongPolls(), 0));
      },
    });
    new prom.Gauge({
      name: name('outbox_backlog_events'),
      help: 'Events waiting in an outbox for the event service, by outbox (main, standby)',
      labelNames: ['outbox'],
      registers: [registry],
      collect() {
        for (const [outbox, waiting] of Object.entries(read((s) => s.outboxBacklog(), {}))) {
          this.set({ outbox }, waiting);
        }
      },
    });
    new prom.Gauge({
      name: name('signing_queue_depth'),
      help: 'Lease signing calls waiting for a worker thread',
      registers: [registry],
      collect() {
        this.set(read((s) => s.signingQueueDepth(), 0));
      },
    });
    return metrics;
  };

  const ensureLoaded = (): Promise<Loaded> => {
    loading ??= load().then((prom) => {
      const metrics = build(prom);
      for (const request of buffered) count(metrics, request);
      for (const source of bufferedEvents) metrics.events.inc({ source });
      buffered = [];
      bufferedEvents = [];
      loaded = metrics;
      return metrics;
    });
    // A failed load (prom-client missing from the install) is tried again at the next scrape.
    loading.catch(() => {
      loading = undefined;
      scheduled = false;
    });
    return loading;
  };

  return {
    observe(request) {
      if (loaded) {
        count(loaded, request);
        return;
      }
      // Bounded while prom-client cannot load: the oldest counts go first.
      if (buffered.length >= MAX_BUFFERED) buffered.shift();
      buffered.push(request);
      // After this turn: the answer that was counted is out; the load blocks the loop once.
      if (!scheduled) {
        scheduled = true;
        setImmediate(() => void ensureLoaded().catch(() => undefined));
      }
    },
    eventsWritten(written) {
      if (loaded) {
        for (const source of written) loaded.events.inc({ source });
        return;
      }
      bufferedEvents.push(...written);
    },
    async render(current) {
      const metrics = await ensureLoaded();
      sources = current;
      return { contentType: metrics.registry.contentType, body: await metrics.registry.metrics() };
    },
  };
}
