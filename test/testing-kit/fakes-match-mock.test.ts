// The mock server stays the reference for the testing kit's fakes (DECISIONS.md "The testing kit
// without a server"): the same drill (every named scenario, a dormant standby, a licensed then
// revoked item, Strategy B's failback) against the mock server and against
// `createFakeLicensing` under msw gives the same outcomes: which service served each lease, which
// items were denied and why, which error code the app met.
import type { RunningServer } from '@standby-licensing/mock-server';
import { createFakeLicensing, scenarioNames } from '@standby-licensing/sdk/testing';
import { fakeDrillTarget } from '@test/helpers/fake-drill-target.js';
import { startMockDrillTarget } from '@test/helpers/mock-drill-target.js';
import { EXPECTED_OUTCOMES, runOutageDrill, SCENARIO_DRILLS } from '@test/helpers/outage-drill.js';
import { setupServer } from 'msw/node';
import { afterAll, expect, it } from 'vitest';

const ITEMS = ['ItemA', 'ItemB'];
let mock: RunningServer | undefined;
const network = setupServer();

afterAll(async () => {
  network.close();
  await mock?.close();
});

it('drills every named scenario', () => {
  expect(new Set(SCENARIO_DRILLS.flat())).toEqual(new Set(scenarioNames));
});

it('gives the same outcomes on the mock server and on the fakes', async () => {
  const started = await startMockDrillTarget(ITEMS);
  mock = started.server;
  const onMock = await runOutageDrill(started.target);

  const urls = {
    mainUrl: 'https://main.licensing.invalid',
    standbyUrl: 'https://standby.licensing.invalid',
    idpUrl: 'https://idp.licensing.invalid',
    eventUrl: 'https://events.licensing.invalid',
  };
  const { eventUrl: _events, ...served } = urls;
  const fake = await createFakeLicensing({ ...served, items: ITEMS });
  network.resetHandlers(...fake.handlers);
  network.listen({ onUnhandledRequest: 'error' });
  const onFakes = await runOutageDrill(fakeDrillTarget(fake, network, urls, 2_500));

  expect(onMock).toEqual(EXPECTED_OUTCOMES);
  expect(onFakes).toEqual(onMock);
}, 120_000);
