// The mock server as a DrillTarget (test/helpers/outage-drill.ts): drills are its admin
// scenarios, grants are licenses provisioned through its admin API. Node only.
import { type RunningServer, startServer } from '@standby-licensing/mock-server';
import type { ScenarioName } from '@standby-licensing/sdk/testing';
import { createSigningKey } from './mock-licensing.js';
import type { DrillTarget } from './outage-drill.js';

/** The mock's `standby-slow` delay, in ms (mock-server/src/admin/scenarios.ts). */
const MOCK_STANDBY_SLOW_MS = 2_500;

/** A mock server (active standby, admin API, catalogue `items`) and the target drilling it. */
export async function startMockDrillTarget(
  items: string[],
): Promise<{ target: DrillTarget; server: RunningServer }> {
  const server = await startServer({ port: 0, state: 'active', admin: true, items });
  const { mainUrl, standbyUrl, idpUrl, eventUrl, apiKey } = server.info;
  const admin = mainUrl.replace(/\/main$/, '/admin');
  const standbyRoot = await createSigningKey(server);
  const jwks = (await (await fetch(`${mainUrl}/.well-known/jwks.json`)).json()) as {
    keys: Array<{ x5c: string[] }>;
  };
  const mainRoot = jwks.keys[0]!.x5c.at(-1)!;
  const mainRootPem = `-----BEGIN CERTIFICATE-----\n${mainRoot.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
  const licenses = new Map<string, string>();
  const call = async (path: string, init: RequestInit = {}, expected = [200, 201, 204]) => {
    const response = await fetch(`${admin}${path}`, init);
    if (!expected.includes(response.status)) {
      throw new Error(
        `${init.method ?? 'GET'} ${path}: ${response.status} ${await response.text()}`,
      );
    }
    return response;
  };
  const setStandby = async (state: 'active' | 'dormant') => {
    const response = await fetch(`${standbyUrl}/${state === 'active' ? 'enabled' : 'disabled'}`, {
      method: 'POST',
      headers: { 'service-apikey': apiKey },
    });
    if (response.status !== 200) throw new Error(`standby ${state}: ${response.status}`);
  };
  const target: DrillTarget = {
    urls: { mainUrl, standbyUrl, idpUrl, eventUrl },
    roots: [
      { pem: mainRootPem, service: 'main' },
      { ...standbyRoot, service: 'standby' },
    ],
    standbySlowMs: MOCK_STANDBY_SLOW_MS,
    async apply(names: readonly ScenarioName[]) {
      for (const name of names) await call(`/scenarios/${name}`, { method: 'POST' });
    },
    async heal() {
      await call('/faults', { method: 'DELETE' });
      await setStandby('active');
    },
    setStandby,
    async grant(sub, item) {
      const response = await call('/main/licenses', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sub, item }),
      });
      licenses.set(`${sub}\n${item}`, ((await response.json()) as { licenseId: string }).licenseId);
    },
    async revoke(sub, item) {
      const id = licenses.get(`${sub}\n${item}`);
      if (id === undefined) throw new Error(`no license of ${item} for ${sub} to revoke`);
      await call(`/main/licenses/${id}`, { method: 'DELETE' });
    },
  };
  return { target, server };
}
