// Page script of test/browser/fake-licensing-worker.test.ts, bundled from the built SDK: the
// outage drill of test/helpers/outage-drill.ts on the testing kit's fakes in msw's service worker
// (`setupWorker`), with no server behind it: the service hosts (`*.licensing.invalid`) do not exist,
// the worker answers every request. It counts the RSA keys the page makes.
import { createFakeLicensing } from '@standby-licensing/sdk/testing';
import { setupWorker } from 'msw/browser';
import { fakeDrillTarget } from '../../helpers/fake-drill-target.js';
import { runOutageDrill } from '../../helpers/outage-drill.js';

/** What the drill met, and how many RSA keys the page made. */
export interface FakeDrillReport {
  outcomes: Record<string, string>;
  keysMade: number;
}

/** The page's surface, on `window.fakeApp`. */
export interface FakeLicensingPage {
  /** Makes the fakes, registers msw's worker with them; resolves whether it controls the page. */
  start(): Promise<boolean>;
  drill(): Promise<FakeDrillReport>;
}

declare global {
  interface Window {
    fakeApp: FakeLicensingPage;
  }
}

const urls = {
  mainUrl: 'https://main.licensing.invalid',
  standbyUrl: 'https://standby.licensing.invalid',
  idpUrl: 'https://idp.licensing.invalid',
  eventUrl: 'https://events.licensing.invalid',
};

let keysMade = 0;
const generateKey = crypto.subtle.generateKey.bind(crypto.subtle);
crypto.subtle.generateKey = ((...args: Parameters<typeof generateKey>) => {
  keysMade += 1;
  return generateKey(...args);
}) as typeof crypto.subtle.generateKey;

let drill: (() => Promise<Record<string, string>>) | undefined;

window.fakeApp = {
  async start() {
    const fake = await createFakeLicensing({
      mainUrl: urls.mainUrl,
      standbyUrl: urls.standbyUrl,
      idpUrl: urls.idpUrl,
      items: ['ItemA', 'ItemB'],
    });
    const worker = setupWorker(...fake.handlers);
    await worker.start({
      quiet: true,
      onUnhandledRequest: 'error',
      serviceWorker: { url: '/mockServiceWorker.js' },
    });
    drill = () => runOutageDrill(fakeDrillTarget(fake, worker, urls, 200));
    return navigator.serviceWorker.controller !== null;
  },

  async drill() {
    if (!drill) throw new Error('start() first');
    return { outcomes: await drill(), keysMade };
  },
};
