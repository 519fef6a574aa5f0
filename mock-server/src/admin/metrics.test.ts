import { decodeJwt } from '@test/helpers/mock-server/decode-jwt.js';
import { signTestIdToken } from '@test/helpers/mock-server/id-tokens.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../app.js';
import { createMetrics, type ObservedRequest } from './metrics.js';

/** The value of one sample line `name{labels} value` of a Prometheus text body (0 when absent). */
function sample(body: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of body.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const open = line.indexOf('{');
    const text = open < 0 ? '' : line.slice(open + 1, line.lastIndexOf('}'));
    const found = Object.fromEntries(
      [...text.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]),
    );
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) {
      return Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return 0;
}

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('/admin/metrics', () => {
  let app: FastifyInstance;
  let authorization: string;
  const scrape = async () => {
    const res = await app.inject({ url: '/admin/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    return res.body;
  };
  const lease = (query: string, headers: Record<string, string> = {}) =>
    app.inject({ url: `/standby/authz/.jwt?${query}`, headers: { authorization, ...headers } });

  beforeAll(async () => {
    app = await buildApp({ admin: true, state: 'active' });
    authorization = `IdToken ${signTestIdToken(app, { claims: { sub: 'ann' } })}`;
  });
  afterAll(() => app.close());

  it('counts requests, leases by kind, releases, faults, and agrees with the journal', async () => {
    const res = await lease('ItemA&ItemB&hw=d1', { traceparent: TRACEPARENT });
    const jti = decodeJwt(res.body.split('&')[0]!).payload.jti as string;
    await lease(`ItemA=;leaseId=${jti}`);
    await lease(`ItemC&ItemA=;leaseId=${jti}`);
    await lease(`release&${jti}&other`);
    await lease('');
    await app.inject({ url: '/nowhere/at/all' });
    await app.inject({
      method: 'POST',
      url: '/admin/faults',
      payload: { service: 'idp', route: '/.well-known/jwks.json', mode: 'error', count: 1 },
    });
    await app.inject({ url: '/idp/.well-known/jwks.json' });
    await app.standbyOutboxDelivery.idle();

    const body = await scrape();
    const requests = (labels: Record<string, string>) =>
      sample(body, 'standby_mock_requests_total', labels);
    expect(requests({ service: 'standby', route: '/authz/.jwt', status: '200' })).toBe(4);
    expect(requests({ service: 'standby', route: '/authz/.jwt', status: '400' })).toBe(1);
    expect(requests({ service: 'other', route: '(unmatched)', status: '404' })).toBe(1);
    const leases = (kind: string) =>
      sample(body, 'standby_mock_leases_granted_total', { service: 'standby', kind });
    expect(leases('consume')).toBe(3);
    expect(leases('renew')).toBe(2);
    expect(sample(body, 'standby_mock_leases_released_total', { service: 'standby' })).toBe(2);
    expect(sample(body, 'standby_mock_faults_hit_total', { service: 'idp' })).toBe(1);
    expect(sample(body, 'standby_mock_events_written_total', { source: 'standby' })).toBe(7);
    expect(
      sample(body, 'standby_mock_request_duration_seconds_count', { service: 'standby' }),
    ).toBe(5);

    // The journal says the same of the same requests.
    const journal = (await app.inject({ url: '/admin/requests?service=standby&status=200' })).json()
      .entries as Array<{ kind: string; items: number; granted: number; traceparent?: string }>;
    expect(journal).toHaveLength(
      requests({ service: 'standby', route: '/authz/.jwt', status: '200' }),
    );
    expect(journal.map((e) => [e.kind, e.items, e.granted])).toEqual([
      ['consume', 2, 2],
      ['renew', 1, 1],
      ['consume+renew', 2, 2],
      ['release', 2, 2],
    ]);
    expect(journal[0]!.traceparent).toBe(TRACEPARENT);
    expect(journal.slice(1).every((e) => e.traceparent === undefined)).toBe(true);
    const releases = (await app.inject({ url: '/admin/requests?kind=release' })).json();
    expect(releases.count).toBe(1);
  });

  it('shows the outbox backlog while deliveries are held, and the parked long polls', async () => {
    app.standbyOutboxDelivery.setPaused(true);
    await lease('ItemA&ItemB&ItemC');
    expect(
      sample(await scrape(), 'standby_mock_outbox_backlog_events', { outbox: 'standby' }),
    ).toBe(3);
    app.standbyOutboxDelivery.setPaused(false);
    await app.standbyOutboxDelivery.idle();
    const body = await scrape();
    expect(sample(body, 'standby_mock_outbox_backlog_events', { outbox: 'standby' })).toBe(0);
    expect(sample(body, 'standby_mock_long_polls_parked')).toBe(0);
    expect(sample(body, 'standby_mock_signing_queue_depth')).toBe(0);
  });

  it('keeps a traceparent only when it is valid W3C Trace Context', async () => {
    for (const header of [
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra',
      'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      'nonsense',
    ]) {
      await app.inject({
        url: '/standby/enabled',
        headers: { authorization, traceparent: header },
      });
    }
    const entries = (await app.inject({ url: '/admin/requests?path=/enabled' })).json().entries;
    expect(entries).toHaveLength(4);
    expect(entries.some((e: { traceparent?: string }) => e.traceparent)).toBe(false);
  });
});

describe('createMetrics', () => {
  const observed = (status: number): ObservedRequest => ({
    entry: { at: 0, service: 'main', method: 'GET', route: '/r', path: '/r', status, ms: 2 },
    matched: true,
    licensing: undefined,
  });
  const sources = {
    faultHits: () => ({}),
    parkedLongPolls: () => 0,
    outboxBacklog: () => ({}),
    signingQueueDepth: () => 0,
  };

  it('loads prom-client only once a request is counted, and counts what came before', async () => {
    const load = vi.fn(() => import('prom-client'));
    const metrics = createMetrics(load);
    await new Promise((resolve) => setImmediate(resolve));
    expect(load).not.toHaveBeenCalled();
    metrics.observe(observed(200));
    metrics.observe(observed(503));
    metrics.eventsWritten(['main', 'other']);
    const { body } = await metrics.render(sources);
    expect(load).toHaveBeenCalledTimes(1);
    expect(sample(body, 'standby_mock_requests_total', { status: '200' })).toBe(1);
    expect(sample(body, 'standby_mock_requests_total', { status: '503' })).toBe(1);
    expect(sample(body, 'standby_mock_events_written_total', { source: 'other' })).toBe(1);
  });

  it('tries loading again at the next scrape when it failed', async () => {
    const load = vi
      .fn<() => Promise<typeof import('prom-client')>>()
      .mockRejectedValueOnce(new Error('Cannot find module prom-client'))
      .mockImplementation(() => import('prom-client'));
    const metrics = createMetrics(load);
    metrics.observe(observed(200));
    await expect(metrics.render(sources)).rejects.toThrow('prom-client');
    const { body } = await metrics.render(sources);
    expect(sample(body, 'standby_mock_requests_total', { status: '200' })).toBe(1);
  });
});
