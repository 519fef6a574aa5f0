// The drill's scripted actions on the services: break and repair main, switch the standby.
import type { ChildServer } from '../bench/child-server.js';
import { clearFaults, setMainFault } from '../bench/mock-api.js';
import type { OutageKind } from './drill-options.js';
import type { MainGate } from './main-gate.js';

/** The four actions of a drill. */
export interface OutageActions {
  breakMain(): Promise<void>;
  recoverMain(): Promise<void>;
  enableStandby(): Promise<void>;
  disableStandby(): Promise<void>;
}

async function manageStandby(server: ChildServer, path: '/enabled' | '/disabled') {
  // The management API, with the vendor's key, as a vendor's operator would switch it.
  const response = await fetch(`${server.info.standbyUrl}${path}`, {
    method: 'POST',
    headers: { 'service-apikey': server.info.apiKey },
  });
  const body = await response.text();
  if (response.status !== 200 || body !== 'true') {
    throw new Error(`POST standby${path}: HTTP ${response.status} ${body}`);
  }
}

/**
 * The actions for one kind of outage. `refused` closes the {@link MainGate} (main's port then
 * refuses connections and open ones are reset) and reopens it; `hang` and `503` set the mock's
 * admin fault on every main route (`POST /admin/faults`: requests never answered, or 503 with an
 * HTML body) and clear it. The standby is switched with its management API.
 *
 * @example
 * const actions = createOutageActions('hang', server, gate);
 * await actions.breakMain();
 */
export function createOutageActions(
  kind: OutageKind,
  server: ChildServer,
  gate: MainGate,
): OutageActions {
  return {
    async breakMain() {
      if (kind === 'refused') await gate.refuse();
      else if (kind === 'hang') await setMainFault(server, { mode: 'hang' });
      else await setMainFault(server, { mode: 'error', status: 503 });
    },
    async recoverMain() {
      if (kind === 'refused') await gate.reopen();
      else await clearFaults(server);
    },
    enableStandby: () => manageStandby(server, '/enabled'),
    disableStandby: () => manageStandby(server, '/disabled'),
  };
}
