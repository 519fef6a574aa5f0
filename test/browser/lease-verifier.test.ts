// Browser smoke test: the built SDK's lease verifier in headless Chromium (WebCrypto path, x509
// chain up to the embedded root). The leases, JWKS and roots come from a real mock server, fetched
// in Node: this test needs no CORS. The page is served from its own loopback origin.
import { type RunningServer, startServer } from '@standby-licensing/mock-server';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundlePage, type PageBundle } from '../helpers/browser/bundle-page.js';
import {
  type BrowserSession,
  chromiumEndpoint,
  openBrowserSession,
} from '../helpers/browser/connect-browser.js';
import { type ServedPage, servePage } from '../helpers/browser/serve-page.js';
import type { LeaseVerifierPageInput, VerifyOutcome } from './pages/lease-verifier.js';

const API_KEY = 'browser-smoke-key';

async function json<T>(response: Response): Promise<T> {
  if (!response.ok) throw new Error(`HTTP ${response.status} from ${response.url}`);
  return (await response.json()) as T;
}

describe.skipIf(chromiumEndpoint() === null)('lease verification in Chromium', () => {
  let mock: RunningServer;
  let bundle: PageBundle;
  let served: ServedPage;
  let session: BrowserSession;
  let page: Page;
  let input: LeaseVerifierPageInput;
  let otherRoot: { pem: string; keyId: string };

  beforeAll(async () => {
    [mock, bundle, session] = await Promise.all([
      startServer({ port: 0, state: 'active', apiKey: API_KEY }),
      bundlePage(new URL('./pages/lease-verifier.ts', import.meta.url)),
      openBrowserSession(),
    ]);
    served = await servePage(bundle.code);
    const { standbyUrl, idpUrl } = mock.info;
    const createKey = () =>
      fetch(`${standbyUrl}/signing-keys`, {
        method: 'POST',
        headers: { 'Service-ApiKey': API_KEY },
      })
        .then(json<{ keyId: string; rootCertificate: string }>)
        .then(({ keyId, rootCertificate }) => ({ pem: rootCertificate, keyId }));
    const root = await createKey();
    const { id_token: idToken } = await json<{ id_token: string }>(
      await fetch(`${idpUrl}/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ sub: 'browser-user' }),
      }),
    );
    const authorization = { Authorization: `IdToken ${idToken}` };
    const lease = await fetch(`${standbyUrl}/authz/.jwt?ItemA&hw=chromium`, {
      headers: authorization,
    });
    if (!lease.ok) throw new Error(`no lease: HTTP ${lease.status}`);
    const jwks = await json<LeaseVerifierPageInput['jwks']>(
      await fetch(`${standbyUrl}/.well-known/jwks.json`, { headers: authorization }),
    );
    input = { token: await lease.text(), item: 'ItemA', jwks, roots: [root] };
    // A second signing key has a root of its own, which never signed the lease's chain.
    otherRoot = await createKey();

    page = await session.context.newPage();
    await page.goto(served.url);
    await page.waitForFunction(() => 'standbyTest' in window);
  });

  afterAll(async () => {
    await session?.close();
    await served?.close();
    await mock?.close();
  });

  const verifyInPage = (pageInput: LeaseVerifierPageInput): Promise<VerifyOutcome> =>
    page.evaluate((arg) => window.standbyTest.verify(arg), pageInput);

  it('serves the page and the mock server from two loopback origins', () => {
    expect(new URL(served.origin).hostname).toBe('127.0.0.1');
    expect(served.origin).not.toBe(new URL(mock.info.standbyUrl).origin);
  });

  it('bundles the built SDK, not its sources', () => {
    expect(bundle.inputs).toContain('sdk/dist/index.js');
  });

  it('runs on WebCrypto in a secure context, without the Node fence', async () => {
    expect(await page.evaluate(() => window.standbyTest.environment())).toEqual({
      nodeBuiltins: false,
      secureContext: true,
      subtle: true,
    });
  });

  it('verifies a real standby lease against the embedded root', async () => {
    const outcome = await verifyInPage(input);
    expect(outcome).toMatchObject({
      ok: true,
      claims: { ItemA: true, hw: 'chromium', sub: 'browser-user' },
    });
  });

  it('refuses a lease whose claims were changed after signing: TOKEN_INVALID', async () => {
    const [header, payload, signature] = input.token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: 'mallory' })).toString('base64url');
    const outcome = await verifyInPage({ ...input, token: `${header}.${forged}.${signature}` });
    expect(outcome).toMatchObject({ ok: false, code: 'TOKEN_INVALID', licensingError: true });
  });

  it('refuses a lease whose chain leads to another root: TOKEN_INVALID', async () => {
    const outcome = await verifyInPage({ ...input, roots: [otherRoot] });
    expect(outcome).toMatchObject({ ok: false, code: 'TOKEN_INVALID', licensingError: true });
  });
});
