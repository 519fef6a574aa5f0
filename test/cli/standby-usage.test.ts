import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeFeed, type FakeEvent } from '@sdk-test/helpers/fake-feed.js';
import { type RunningServer, startServer } from '@standby-licensing/mock-server';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../sdk/src/cli/cli-io.js';
import { runCli } from '../../sdk/src/cli/run-cli.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  urls: string[];
  authorizations: string[];
}

async function run(argv: string[], env: Record<string, string> = {}): Promise<Run> {
  const result: Run = { code: -1, stdout: '', stderr: '', urls: [], authorizations: [] };
  const io: CliIo = {
    stdout: (text) => {
      result.stdout += text;
    },
    stderr: (text) => {
      result.stderr += text;
    },
    fetch: (input, init) => {
      result.urls.push(String(input instanceof Request ? input.url : input));
      const headers = new Headers(input instanceof Request ? input.headers : init?.headers);
      result.authorizations.push(headers.get('authorization') ?? '');
      return fetch(input, init);
    },
    env,
    now: () => new Date(),
  };
  result.code = await runCli(['usage', ...argv], io);
  return result;
}

/** An RS256 read JWT claiming `claims`, signed with `key`, valid ten minutes. */
function readJwt(claims: Record<string, unknown>, key: KeyObject): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const exp = Math.floor(Date.now() / 1000) + 600;
  const input = `${part({ alg: 'RS256', typ: 'JWT' })}.${part({ ...claims, exp })}`;
  return `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
}

/** The payload of a compact JWT, parsed. */
function payloadOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));
}

describe('standby-licensing usage, against the mock server', () => {
  let server: RunningServer;
  let dir: string;
  let readerKeyFile: string;
  let readerToken: string;

  const post = async (url: string, body: unknown) =>
    (await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then((res) => res.json())) as { id_token: string };
  const lease = async (query: string, sub: string) => {
    const { id_token } = await post(`${server.info.idpUrl}/token`, { sub });
    const res = await fetch(`${server.info.standbyUrl}/authz/.jwt?${query}`, {
      headers: { authorization: `IdToken ${id_token}` },
    });
    expect(res.status).toBe(200);
    return payloadOf((await res.text()).split('&')[0]!);
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'usage-cli-'));
    const reader = generateKeyPairSync('rsa', { modulusLength: 2048 });
    readerKeyFile = join(dir, 'reader.pem');
    await writeFile(
      readerKeyFile,
      reader.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    );
    server = await startServer({
      port: 0,
      state: 'active',
      eventReaderKeys: [reader.publicKey.export({ type: 'spki', format: 'pem' }).toString()],
    });
    readerToken = readJwt({ standby: true }, reader.privateKey);
    const first = await lease('Pro&hw=d1', 'ann');
    await lease(`Pro=;leaseId=${first.jti}&hw=d1`, 'ann');
    await lease('Basic&hw=d2', 'bo');
    await fetch(`${server.info.standbyUrl}/authz/.jwt?release&${first.jti}`, {
      headers: {
        authorization: `IdToken ${(await post(`${server.info.idpUrl}/token`, { sub: 'ann' })).id_token}`,
      },
    });
    await server.app.standbyOutboxDelivery.idle();
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('prints the summary as JSON with a reader token', async () => {
    const result = await run([
      '--event-url',
      server.info.eventUrl,
      '--reader-token',
      readerToken,
      '--format',
      'json',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const rows = JSON.parse(result.stdout) as Array<Record<string, unknown>>;
    expect(rows.map((r) => [r.consumer, r.item, r.granted, r.renewed, r.released])).toEqual([
      ['ann', 'Pro', 1, 1, 1],
      ['bo', 'Basic', 1, 0, 0],
    ]);
    expect(rows[0]!.firstGrant).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(result.urls.every((url) => url.startsWith(`${server.info.eventUrl}/get/standby?`))).toBe(
      true,
    );
  });

  it('signs its own read JWTs with --reader-key, claiming the standby feed only', async () => {
    const result = await run(['--event-url', server.info.eventUrl, '--reader-key', readerKeyFile]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^consumer +item +granted/);
    expect(result.stdout).toContain('2 consumers');
    const token = result.authorizations[0]!.replace(/^Bearer /, '');
    expect(payloadOf(token)).toMatchObject({ standby: true });
  });

  it('prints CSV with a header line', async () => {
    const result = await run([
      '--event-url',
      server.info.eventUrl,
      '--reader-token',
      readerToken,
      '--format',
      'csv',
    ]);
    const lines = result.stdout.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'consumer,item,granted,renewed,released,firstGrant,lastExp,leaseHours,devices,graceGrants',
    );
    expect(lines).toHaveLength(3);
    expect(lines[2]).toMatch(/^bo,Basic,1,0,0,/);
  });

  it('reads the token from STANDBY_LICENSING_READER_TOKEN, and a window that holds nothing', async () => {
    const result = await run(
      ['--event-url', server.info.eventUrl, '--from', '2001-01-01', '--to', '2001-01-02'],
      { STANDBY_LICENSING_READER_TOKEN: readerToken },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('No standby lease events in this window.\n');
    expect(result.urls[0]).toContain(`before=${Date.UTC(2001, 0, 2)}000000`);
  });

  it('fails with exit 1 naming the service when the token is refused', async () => {
    const result = await run(['--event-url', server.info.eventUrl, '--reader-token', 'x.y.z']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^standby-licensing usage: reading .*feed standby: /);
  });

  it.each([
    [[], '--event-url <url> is required'],
    [['--event-url', 'http://x/events'], 'give --reader-token or --reader-key'],
    [['--event-url', 'ftp://x', '--reader-token', 't'], 'http(s) URL'],
    [['--event-url', 'http://x', '--reader-token', 't', '--reader-key', 'k'], 'not both'],
    [['--event-url', 'http://x', '--reader-token', 't', '--format', 'xml'], '--format must be'],
    [['--event-url', 'http://x', '--reader-token', 't', '--from', 'yesterday'], '--from must be'],
    [
      [
        '--event-url',
        'http://x',
        '--reader-token',
        't',
        '--from',
        '2031-02-01',
        '--to',
        '2031-01-01',
      ],
      '--from must be before --to',
    ],
    [['--event-url', 'http://x', '--reader-token', 't', '--reader-key-id', 'k'], 'goes with'],
  ])('refuses %j with exit 2', async (argv, message) => {
    const result = await run(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.urls).toEqual([]);
  });
});

describe('standby-licensing usage, auto-paging', () => {
  const eventUrl = 'http://events.test/events';
  const events: FakeEvent[] = Array.from({ length: 25 }, (_, i) => ({
    eventType: 'StandbyLeaseGranted',
    eventSourceId: 'standby',
    eventObjectType: 'consumer',
    eventObjectId: `c${i % 5}`,
    eventId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    eventReceived: 1_900_000_000_000_000_000n + BigInt(i),
    data: { leaseId: `L${i}`, licensedItemName: 'Pro', iat: 1_900_000_000, exp: 1_900_028_800 },
  }));
  // A server that caps pages at 4 events, whatever the command asks for.
  const feed = createFakeFeed(eventUrl, 'standby', events, () => 4);
  const msw = setupServer(feed.handler);
  beforeAll(() => msw.listen({ onUnhandledRequest: 'error' }));
  afterAll(() => msw.close());

  it('follows every page of the window', async () => {
    const result = await run(['--event-url', eventUrl, '--reader-token', 't', '--format', 'json']);
    expect(result.stderr).toBe('');
    const rows = JSON.parse(result.stdout) as Array<{ granted: number }>;
    expect(rows).toHaveLength(5);
    expect(rows.reduce((sum, row) => sum + row.granted, 0)).toBe(25);
    expect(feed.requests.length).toBeGreaterThanOrEqual(7);
  });
});
