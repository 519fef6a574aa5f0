// Runs the OpenTelemetry recipe (examples/opentelemetry-spans.ts, shown in docs/observability.md)
// with OpenTelemetry's in-memory exporter against an in-process mock server: a checkout on main,
// one on the standby while main answers 503 (a failover), a renewal, a checkout that fails (main
// down, standby switched off) and a restore; each is one span with the attributes the recipe
// promises. The docs page holds the recipe as it is in the file.
import { readFile } from 'node:fs/promises';
import { SpanStatusCode } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { createMemoryLeaseStore, isLicensingError } from '@standby-licensing/sdk';
import {
  clearFaults,
  clientFor,
  type MockLicensing,
  setMainFault,
  setStandbyEnabled,
  startMockLicensing,
} from '@test/helpers/mock-licensing.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { traceLicensing } from './opentelemetry-spans.js';

let mock: MockLicensing;
beforeAll(async () => {
  mock = await startMockLicensing();
});
afterAll(async () => {
  await clearFaults(mock.server);
  await setStandbyEnabled(mock.server, true);
  await mock.close();
});

const summary = (span: ReadableSpan) => ({
  name: span.name,
  attributes: span.attributes,
  status: span.status.code,
  events: span.events.map((event) => [event.name, event.attributes]),
});

it('makes a span per checkout, renewal and restore, with the service, failover reason and error', async () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const stop = traceLicensing(provider.getTracer('licensed-app'));
  const store = createMemoryLeaseStore();
  const options = {
    leaseStore: store,
    failover: { strategy: 'A' as const, mainAttempts: 2, breaker: false as const },
  };
  let failure: unknown;
  try {
    const { client } = clientFor(mock, options);
    const { leases } = await client.checkout(['ItemA']);
    await setMainFault(mock.server, { mode: 'error', status: 503 });
    await client.checkout(['ItemB']);
    await clearFaults(mock.server);
    await client.renew(leases[0]!);
    await setMainFault(mock.server, { mode: 'error', status: 503 });
    await setStandbyEnabled(mock.server, false);
    failure = await client.checkout(['ItemC']).catch((error: unknown) => error);
    await clearFaults(mock.server);
    await setStandbyEnabled(mock.server, true);
    await client.close({ release: false });
    const { client: restarted } = clientFor(mock, options);
    await restarted.restore();
    await restarted.close();
  } finally {
    stop();
  }
  expect(isLicensingError(failure)).toBe(true);
  const { code, reason } = failure as { code: string; reason?: string };

  const spans = exporter.getFinishedSpans().map(summary);
  const attempt = (n: number) => [
    'licensing.attempt_failed',
    { service: 'main', attempt: n, reason: 'server-error' },
  ];
  expect(spans).toEqual([
    {
      name: 'licensing.checkout',
      attributes: { 'licensing.items': ['ItemA'], 'licensing.service': 'main' },
      status: SpanStatusCode.UNSET,
      events: [],
    },
    {
      name: 'licensing.checkout',
      attributes: {
        'licensing.items': ['ItemB'],
        'licensing.service': 'standby',
        'licensing.failover.reason': 'server-error',
      },
      status: SpanStatusCode.UNSET,
      events: [
        attempt(1),
        attempt(2),
        ['licensing.failover', { reason: 'server-error', strategy: 'A' }],
      ],
    },
    {
      name: 'licensing.renew',
      attributes: { 'licensing.items': ['ItemA'], 'licensing.service': 'main' },
      status: SpanStatusCode.UNSET,
      events: [],
    },
    {
      name: 'licensing.checkout',
      attributes: {
        'licensing.items': ['ItemC'],
        'error.type': code,
        'licensing.error.code': code,
        ...(reason ? { 'licensing.error.reason': reason } : {}),
      },
      status: SpanStatusCode.ERROR,
      events: [
        attempt(1),
        attempt(2),
        ['licensing.attempt_failed', { service: 'standby', attempt: 1, reason: 'standby-dormant' }],
        ['exception', expect.objectContaining({ 'exception.type': code })],
      ],
    },
    {
      name: 'licensing.restore',
      attributes: { 'licensing.service': expect.stringMatching(/^(main|standby)$/) },
      status: SpanStatusCode.UNSET,
      events: [],
    },
  ]);
  expect(code).toBe('STANDBY_DORMANT');
  // No span holds a token or the hardware id ('hw-1', the helper's).
  const text = JSON.stringify(exporter.getFinishedSpans().map((s) => [s.attributes, s.events]));
  expect(text).not.toMatch(/eyJ|hw-1/);
  await provider.shutdown();
});

it('is what docs/observability.md shows', async () => {
  const [doc, recipe] = await Promise.all([
    readFile(new URL('../docs/observability.md', import.meta.url), 'utf8'),
    readFile(new URL('./opentelemetry-spans.ts', import.meta.url), 'utf8'),
  ]);
  // The file from its imports on, as the page's ts block shows it.
  const code = recipe.slice(recipe.indexOf('import { AsyncLocalStorage }'));
  expect(doc).toContain(`\`\`\`ts\n${code}\`\`\``);
});
