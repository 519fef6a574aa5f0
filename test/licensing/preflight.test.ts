// client.preflight() against the real mock server (DECISIONS.md "App integration (third wave)"):
// a right setup passes every check without taking a seat; each misconfiguration an app can ship
// (a typo in standbyUrl, a root not embedded, main unreachable, a broken ID-token provider, a lease
// store that cannot be read or written) fails its own check with a message that says what to
// check; a dormant standby is a check that cannot apply; nothing in the lease store is lost.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createMemoryLeaseStore,
  type LeaseStore,
  type PreflightCheck,
  type PreflightResult,
} from '@standby-licensing/sdk';
import {
  clientFor,
  closedPort,
  type MockLicensing,
  setStandbyEnabled,
  startMockLicensing,
} from '@test/helpers/mock-licensing.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let mock: MockLicensing;
let adminUrl: string;
/** A server that answers every path 200 with an HTML page (a captive portal, a web server). */
let html: Server;
let htmlUrl: string;

beforeAll(async () => {
  mock = await startMockLicensing();
  adminUrl = mock.server.info.mainUrl.replace(/\/main$/, '/admin');
  html = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end('<html><body>Welcome</body></html>');
  });
  await new Promise<void>((resolve) => html.listen(0, '127.0.0.1', resolve));
  htmlUrl = `http://127.0.0.1:${(html.address() as AddressInfo).port}/licensing`;
});
afterAll(async () => {
  await mock.close();
  await new Promise<void>((resolve) => html.close(() => resolve()));
});

function check(result: PreflightResult, id: PreflightCheck['id']): PreflightCheck {
  const found = result.checks.find((c) => c.id === id);
  if (!found) throw new Error(`no ${id} check in ${JSON.stringify(result)}`);
  return found;
}

async function licensingRequestsSince(seq: number) {
  const response = await fetch(`${adminUrl}/requests?after=${seq}`);
  const body = (await response.json()) as {
    entries: Array<{ service: string; route: string }>;
    lastSeq: number;
  };
  return body;
}

describe('client.preflight()', () => {
  it('passes every check on a right setup, and takes no seat', async () => {
    const { lastSeq } = await licensingRequestsSince(0);
    const { client } = clientFor(mock);
    const result = await client.preflight();
    expect(result.checks.map((c) => [c.id, c.status])).toEqual([
      ['id-token', 'passed'],
      ['main', 'passed'],
      ['standby', 'passed'],
      ['lease-store', 'passed'],
    ]);
    expect(result.ok).toBe(true);
    expect(check(result, 'id-token').message).toMatch(/auth\.idToken gave an ID token for user-1/);
    expect(check(result, 'standby').message).toContain(
      `its signing key ${mock.standbyRoot.keyId} chains to the embedded root`,
    );
    const { entries } = await licensingRequestsSince(lastSeq);
    expect(entries.filter((e) => e.route.startsWith('/authz'))).toEqual([]);
    expect(entries.map((e) => `${e.service} ${e.route}`).sort()).toEqual([
      'idp /token',
      'main /.well-known/jwks.json',
      'standby /.well-known/jwks.json',
      'standby /enabled',
    ]);
    await client.close();
  });

  it('a dormant standby cannot be checked: skipped, and preflight is still ok', async () => {
    await setStandbyEnabled(mock.server, false);
    try {
      const { client } = clientFor(mock);
      const result = await client.preflight();
      expect(check(result, 'standby')).toMatchObject({ ok: true, status: 'skipped' });
      expect(check(result, 'standby').message).toMatch(
        /dormant .* the chain is checked once it is enabled/,
      );
      expect(result.ok).toBe(true);
      await client.close();
    } finally {
      await setStandbyEnabled(mock.server, true);
    }
  });

  it.each([
    [
      'a path where nothing is (404)',
      () => `${new URL(mock.server.info.standbyUrl).origin}/stanby`,
    ],
    ['a web page answering 200 with HTML', () => htmlUrl],
  ])(
    'standbyUrl pointing at %s fails the standby check and says to check standbyUrl',
    async (_, url) => {
      const { client } = clientFor(mock, { standbyUrl: url() });
      const result = await client.preflight();
      const standby = check(result, 'standby');
      expect(standby).toMatchObject({ ok: false, status: 'failed' });
      expect(standby.message).toContain(`Check standbyUrl (${url()})`);
      expect(result.ok).toBe(false);
      expect(check(result, 'main').ok).toBe(true);
      await client.close();
    },
  );

  it('standbyUrl equal to mainUrl is refused before any check (INVALID_ARGUMENT)', () => {
    const { mainUrl } = mock.server.info;
    expect(() => clientFor(mock, { standbyUrl: `${mainUrl}/` })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', option: 'standbyUrl' }),
    );
  });

  it('a standby root never embedded: names the service, the embedded roots and how to embed it', async () => {
    const { client } = clientFor(mock, {
      trust: { rootCertificates: [{ pem: mock.mainRootPem }] },
    });
    const result = await client.preflight();
    const standby = check(result, 'standby');
    expect(standby).toMatchObject({ ok: false, error: { code: 'TOKEN_INVALID', reason: 'chain' } });
    expect(standby.message).toMatch(/^the standby service's signing key \S+ cannot be trusted/);
    expect(standby.message).toMatch(/The app embeds 1 root\(s\): CN=/);
    expect(standby.message).toContain(
      `npx standby-licensing embed-root --standby-url ${mock.server.info.standbyUrl}`,
    );
    expect(check(result, 'main').ok).toBe(true);
    await client.close();
  });

  it('a main root never embedded fails the main check the same way', async () => {
    const { client } = clientFor(mock, { trust: { rootCertificates: [mock.standbyRoot] } });
    const result = await client.preflight();
    const main = check(result, 'main');
    expect(main).toMatchObject({ ok: false, error: { code: 'TOKEN_INVALID', reason: 'chain' } });
    expect(main.message).toContain(
      `embed-root --jwks-url ${mock.server.info.mainUrl}/.well-known/jwks.json`,
    );
    await client.close();
  });

  it('main unreachable: says to check mainUrl; the other checks still run', async () => {
    const mainUrl = `http://127.0.0.1:${await closedPort()}/main`;
    const { client } = clientFor(mock, { mainUrl });
    const result = await client.preflight();
    expect(check(result, 'main')).toMatchObject({
      ok: false,
      error: { code: 'SERVICE_UNAVAILABLE' },
    });
    expect(check(result, 'main').message).toContain(`Check mainUrl (${mainUrl})`);
    expect(check(result, 'standby').ok).toBe(true);
    expect(check(result, 'lease-store').ok).toBe(true);
    await client.close();
  });

  it('an ID-token provider that throws fails the id-token check, asked even with a token cached', async () => {
    let calls = 0;
    let broken = false;
    const { client } = clientFor(mock, {
      idToken: async () => {
        calls += 1;
        if (broken) throw new Error('the sign-in window was closed');
        const response = await fetch(`${mock.server.info.idpUrl}/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ sub: 'user-1' }),
        });
        return ((await response.json()) as { id_token: string }).id_token;
      },
    });
    await client.checkout(['ItemA']);
    expect(calls).toBe(1);
    broken = true;
    const result = await client.preflight();
    expect(calls).toBe(2);
    const idToken = check(result, 'id-token');
    expect(idToken).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } });
    expect(idToken.message).toMatch(
      /failed: the sign-in window was closed\. Check the app's sign-in \(auth\.idToken\)/,
    );
    expect(result.ok).toBe(false);
    await client.close();
  });

  it('keeps what the lease store holds: the leases of the last session restore after it', async () => {
    const store = createMemoryLeaseStore();
    const first = clientFor(mock, { leaseStore: store }).client;
    const { leases } = await first.checkout(['ItemA', 'ItemB']);
    await first.close();
    const before = await store.load();

    const { client } = clientFor(mock, { leaseStore: store });
    const result = await client.preflight();
    expect(check(result, 'lease-store')).toMatchObject({ ok: true, status: 'passed' });
    expect(check(result, 'lease-store').message).toContain('(2 saved lease(s))');
    const after = JSON.parse((await store.load())!) as { leases: unknown[] };
    expect(after.leases).toEqual((JSON.parse(before!) as { leases: unknown[] }).leases);
    const restored = await client.restore();
    expect(restored.leases.map((l) => l.leaseId)).toEqual(leases.map((l) => l.leaseId));
    await client.close();
  });

  it('an unreadable store fails the check and is never written', async () => {
    const saves: string[] = [];
    const store: LeaseStore = {
      load: async () => {
        throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      },
      save: async (text) => void saves.push(text),
      clear: async () => undefined,
    };
    const { client } = clientFor(mock, { leaseStore: store });
    const result = await client.preflight();
    const leaseStore = check(result, 'lease-store');
    expect(leaseStore).toMatchObject({
      ok: false,
      error: { code: 'LEASE_STORE_INVALID', reason: 'unreadable' },
    });
    expect(leaseStore.message).toMatch(/EACCES.*It is not written until it can be read/);
    expect(saves).toEqual([]);
    await client.close();
  });

  it('a store that cannot be written fails the check', async () => {
    const inner = createMemoryLeaseStore();
    const store: LeaseStore = {
      load: () => inner.load(),
      save: async () => {
        throw new Error('ENOSPC: no space left on device');
      },
      clear: () => inner.clear(),
    };
    const { client } = clientFor(mock, { leaseStore: store });
    const result = await client.preflight();
    expect(check(result, 'lease-store')).toMatchObject({ ok: false, status: 'failed' });
    expect(check(result, 'lease-store').message).toMatch(
      /could be read but not written \(ENOSPC: no space left on device\)\. Check/,
    );
    await client.close();
  });

  it('resolves when everything is wrong, and rejects only when aborted', async () => {
    const nowhere = `http://127.0.0.1:${await closedPort()}`;
    const { client } = clientFor(mock, {
      mainUrl: `${nowhere}/main`,
      standbyUrl: `${nowhere}/standby`,
      idToken: () => 'not a jwt',
    });
    const result = await client.preflight();
    expect(result.ok).toBe(false);
    expect(result.checks.map((c) => [c.id, c.ok])).toEqual([
      ['id-token', false],
      ['main', false],
      ['standby', false],
      ['lease-store', true],
    ]);
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(client.preflight({ signal: controller.signal })).rejects.toThrow('stop');
    await client.close();
  });
});
