import { randomUUID } from 'node:crypto';
import { createEventClient } from '@standby-licensing/sdk';
import { runCli } from '../../sdk/src/cli/run-cli.js';
import { summarizeStandbyUsage } from '../../sdk/src/events/summarize-standby-usage.js';
import { ratioOf } from './bench-helpers.js';
import type { BenchLine, BenchRow } from './bench-result.js';
import { type ChildServer, startChildServer } from './child-server.js';
import { mintToken } from './mock-api.js';

/** Target of row 9 (issue 29): a window of 100 000 standby events summarised within this, in ms. */
export const USAGE_SUMMARY_TARGET_MS = 10_000;

/** Events per written batch (legacy JSON; well under the 1 MiB body limit). */
const BATCH = 1000;

/**
 * The standby's events of an outage, as the standby writes them: `count` events over 2 000
 * consumers and three items, each lease granted, then renewed about every other time, released
 * about every fifth time.
 */
function* outageEvents(count: number): Generator<Record<string, unknown>[]> {
  const t0 = Math.floor(Date.now() / 1000) - 8 * 3600;
  let batch: Record<string, unknown>[] = [];
  let made = 0;
  let lease = 0;
  const push = (
    eventType: string,
    consumer: number,
    leaseId: string,
    iat: number,
    item: string,
  ) => {
    batch.push({
      eventId: randomUUID(),
      eventType,
      eventSourceId: 'standby',
      eventObjectType: 'consumer',
      eventObjectId: `user-${consumer}`,
      data: {
        leaseId,
        licenseId: `lic-${consumer}-${item}`,
        licensedItemName: item,
        iat,
        exp: iat + 28_800,
        hw: `device-${consumer}-${lease % 3}`,
        version: '4.2.0',
        authorization: 'IdToken',
        idTokenGraceSeconds: lease % 11 === 0 ? 3600 : 0,
      },
    });
    made++;
  };
  while (made < count) {
    const consumer = lease % 2000;
    const item = ['Pro', 'Basic', 'Team'][lease % 3]!;
    const leaseId = `lease-${lease}`;
    const iat = t0 + (lease % 600) * 30;
    push('StandbyLeaseGranted', consumer, leaseId, iat, item);
    if (lease % 2 === 0 && made < count)
      push('StandbyLeaseRenewed', consumer, leaseId, iat + 21_600, item);
    if (lease % 5 === 0 && made < count) push('StandbyLeaseReleased', consumer, leaseId, iat, item);
    lease++;
    if (batch.length >= BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

async function load(server: ChildServer, count: number): Promise<void> {
  for (const batch of outageEvents(count)) {
    const res = await fetch(`${server.info.eventUrl}/put`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(batch),
    });
    if (res.status !== 201) throw new Error(`events/put: HTTP ${res.status} ${await res.text()}`);
  }
}

/**
 * Row 9: what a vendor runs after an outage. The mock (in memory, a child process) holds `count`
 * standby lease events (100 000; 20 000 with `--quick`); `standby-licensing usage --format json`,
 * run in this process, reads the whole window page by page (10 000 a request) and summarises it.
 * Reference, same run: reading the same window with the SDK's event client and doing nothing
 * with it. Further lines: `summarizeStandbyUsage` alone over the events read, and the rows.
 */
export const usageSummaryRow: BenchRow = {
  name: 'usage',
  id: 9,
  title: 'standby-licensing usage over a 100 000-event window vs reading it',
  async run({ quick, log }) {
    const count = quick ? 20_000 : 100_000;
    const server = await startChildServer();
    try {
      log(`row 9: writing ${count} standby events`);
      await load(server, count);
      const token = await mintToken(server, { claims: { '*': true } });
      const eventUrl = server.info.eventUrl;

      // Reference: the same window read, nothing done with it.
      const read = async () => {
        const client = createEventClient({
          eventUrl,
          auth: { token: () => token },
          pageSize: 10_000,
        });
        const events = [];
        for await (const page of client.pages('standby')) events.push(...page.events);
        return events;
      };
      const usage = async () => {
        let out = '';
        const code = await runCli(
          ['usage', '--event-url', eventUrl, '--reader-token', token, '--format', 'json'],
          {
            stdout: (text) => {
              out += text;
            },
            stderr: (text) => process.stderr.write(text),
            fetch: (input, init) => fetch(input, init),
            env: {},
            now: () => new Date(),
          },
        );
        if (code !== 0) throw new Error(`standby-licensing usage exited ${code}`);
        return JSON.parse(out) as unknown[];
      };
      log('row 9: warm-up');
      await read();
      await usage();
      const rounds = quick ? 1 : 3;
      const readMs: number[] = [];
      const usageMs: number[] = [];
      const summaryMs: number[] = [];
      let rows = 0;
      let events = 0;
      for (let round = 0; round < rounds; round++) {
        log(`row 9: round ${round + 1}/${rounds}`);
        let start = performance.now();
        const window = await read();
        readMs.push(performance.now() - start);
        events = window.length;
        start = performance.now();
        summarizeStandbyUsage(window);
        summaryMs.push(performance.now() - start);
        start = performance.now();
        rows = (await usage()).length;
        usageMs.push(performance.now() - start);
      }
      if (events !== count) throw new Error(`read ${events} events, wrote ${count}`);
      const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
      const usageLine = median(usageMs);
      const readLine = median(readMs);
      const summaryLine = median(summaryMs);
      const lines: BenchLine[] = [
        {
          row: '9',
          metric: `ms for standby-licensing usage over ${count} events (read every page + summary)`,
          ours: usageLine,
          unit: 'ms',
          reference: readLine,
          referenceLabel: 'reading the same window, event client, nothing done',
          ...(ratioOf(usageLine, readLine) === undefined
            ? {}
            : { ratio: ratioOf(usageLine, readLine)! }),
          target: `< ${USAGE_SUMMARY_TARGET_MS} ms`,
          met: usageLine < USAGE_SUMMARY_TARGET_MS,
          details: { events: count, rows, rounds, pages: Math.ceil(count / 10_000) },
        },
        {
          row: '9 summary',
          metric: `ms for summarizeStandbyUsage alone over ${count} events`,
          ours: summaryLine,
          unit: 'ms',
          reference: readLine,
          referenceLabel: 'reading the same window',
          ...(ratioOf(summaryLine, readLine) === undefined
            ? {}
            : { ratio: ratioOf(summaryLine, readLine)! }),
          details: { eventsPerMs: count / summaryLine },
        },
      ];
      return lines;
    } finally {
      await server.close();
    }
  },
};
