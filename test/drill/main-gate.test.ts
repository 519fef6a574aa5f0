import { createServer, type Server } from 'node:http';
import { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { classifyFetchFailure } from './counting-fetch.js';
import { NETWORK_OUTCOMES } from './fleet-records.js';
import { type MainGate, startMainGate } from './main-gate.js';

let backend: Server;
let gate: MainGate | undefined;
const agent = new Agent({ keepAliveTimeout: 30_000 });

beforeAll(async () => {
  backend = createServer((req, res) => {
    if (req.url === '/slow') setTimeout(() => res.end('late'), 2_000);
    else res.end(`via ${req.url}`);
  });
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
});

afterEach(async () => {
  await gate?.close();
});

afterAll(async () => {
  await agent.close();
  backend.closeAllConnections();
  await new Promise<void>((resolve) => backend.close(() => resolve()));
});

const get = (path: string) =>
  fetch(`http://127.0.0.1:${gate!.port}${path}`, { dispatcher: agent } as RequestInit);

async function outcomeOf(path: string): Promise<number> {
  try {
    return (await get(path)).status;
  } catch (error) {
    return classifyFetchFailure(error, undefined);
  }
}

describe('startMainGate', () => {
  it('relays HTTP with keep-alive, refuses while closed, and serves again on the same port', async () => {
    gate = await startMainGate({ targetPort: (backend.address() as { port: number }).port });
    const port = gate.port;
    for (const path of ['/main/a', '/main/b', '/main/c', '/main/d', '/main/e', '/main/f']) {
      expect(await (await get(path)).text()).toBe(`via ${path}`);
    }
    // Kept-alive connections are relayed as they are (undici may open a second one early on).
    expect(gate.accepted).toBeLessThanOrEqual(2);

    const inFlight = outcomeOf('/slow');
    await new Promise((resolve) => setTimeout(resolve, 100));
    await gate.refuse();
    expect(gate.isOpen).toBe(false);
    expect(await inFlight).toBe(NETWORK_OUTCOMES.reset);
    expect(await outcomeOf('/main/c')).toBe(NETWORK_OUTCOMES.refused);

    await gate.reopen();
    expect(gate.port).toBe(port);
    expect(await (await get('/main/d')).text()).toBe('via /main/d');
  });
});
