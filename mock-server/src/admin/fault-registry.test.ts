import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../http/api-error.js';
import { createFaultRegistry, type FaultRegistry, type FaultSpec } from './fault-registry.js';

const PREFIXES = { main: '/main', standby: '/standby', idp: '/idp', events: '/events' } as const;

function registry(): FaultRegistry {
  const faults = createFaultRegistry({ prefixes: PREFIXES });
  for (const route of ['/authz/.jwt', '/.well-known/jwks.json']) faults.addRoute('main', route);
  faults.addRoute('standby', '/authz/.jwt');
  faults.addRoute('events', '/get/:eventSourceId');
  return faults;
}

/** Hit (`x`) or miss (`.`) for `n` requests to main's `/authz/.jwt`, and each hit's delay. */
function sequence(spec: FaultSpec, n: number): { marks: string; delays: number[] } {
  const faults = registry();
  faults.set(spec);
  let marks = '';
  const delays: number[] = [];
  for (let i = 0; i < n; i++) {
    const hit = faults.take('main', '/authz/.jwt');
    marks += hit ? 'x' : '.';
    if (hit) delays.push(hit.delayMs);
  }
  return { marks, delays };
}

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (err) {
    return err instanceof ApiError ? { status: err.statusCode, error: err.error } : err;
  }
  return undefined;
};

describe('fault registry', () => {
  it('repeats the same hits and misses for the same seed, and others for another', () => {
    const spec: FaultSpec = { mode: 'error', probability: 0.5, seed: 42 };
    const first = sequence(spec, 200);
    expect(sequence(spec, 200)).toEqual(first);
    // About half hit (200 draws at p = 0.5: 100 ± 35 covers far more than 1 - 1e-6).
    const hits = [...first.marks].filter((mark) => mark === 'x').length;
    expect(hits).toBeGreaterThan(65);
    expect(hits).toBeLessThan(135);
    expect(sequence({ ...spec, seed: 43 }, 200).marks).not.toBe(first.marks);
  });

  it('repeats every seed exactly, for any probability, every and jitter', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2_147_483_647 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 0, max: 1000 }),
        (seed, probability, every, jitterMs) => {
          const spec: FaultSpec = {
            mode: 'delay',
            delayMs: 10,
            jitterMs,
            probability,
            seed,
            every,
          };
          const run = sequence(spec, 60);
          expect(sequence(spec, 60)).toEqual(run);
          for (const delay of run.delays) {
            expect(delay).toBeGreaterThanOrEqual(10);
            expect(delay).toBeLessThanOrEqual(10 + jitterMs);
          }
        },
      ),
      { numRuns: 50 },
    );
  });

  it('hits every n-th matching request with every', () => {
    expect(sequence({ mode: 'reset', every: 3 }, 9).marks).toBe('..x..x..x');
  });

  it('never hits at probability 0 and always at 1, counting misses', () => {
    const faults = registry();
    faults.set({ mode: 'reset', probability: 0, seed: 1 });
    for (let i = 0; i < 5; i++) expect(faults.take('main', '/authz/.jwt')).toBeUndefined();
    expect(faults.list()[0]).toMatchObject({ hits: 0, misses: 5, seed: 1, probability: 0 });
    expect(sequence({ mode: 'reset', probability: 1, seed: 1 }, 5).marks).toBe('xxxxx');
  });

  it('counts hits toward count, then the fault is gone', () => {
    const faults = registry();
    faults.set({ mode: 'reset', every: 2, count: 2 });
    const marks = Array.from({ length: 6 }, () =>
      faults.take('main', '/authz/.jwt') ? 'x' : '.',
    ).join('');
    expect(marks).toBe('.x.x..');
    expect(faults.list()).toEqual([]);
  });

  it('draws the jitter from the seed, within [delayMs, delayMs + jitterMs]', () => {
    const { delays } = sequence({ mode: 'delay', delayMs: 100, jitterMs: 50, seed: 9 }, 40);
    expect(delays).toHaveLength(40);
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(100);
    expect(Math.max(...delays)).toBeLessThanOrEqual(150);
    expect(new Set(delays).size).toBeGreaterThan(5);
  });

  it('shows a random seed when none was given, so a run can be repeated', () => {
    const faults = registry();
    const fault = faults.set({ mode: 'reset', probability: 0.3 });
    expect(Number.isInteger(fault.seed)).toBe(true);
    const replay = sequence({ mode: 'reset', probability: 0.3, seed: fault.seed! }, 50).marks;
    let marks = '';
    for (let i = 0; i < 50; i++) marks += faults.take('main', '/authz/.jwt') ? 'x' : '.';
    expect(marks).toBe(replay);
  });

  it('leaves out the members of another mode, as it always did', () => {
    const faults = registry();
    expect(faults.set({ mode: 'reset', status: 503, delayMs: 5, seed: 3 })).toEqual({
      service: 'main',
      route: '*',
      mode: 'reset',
      hits: 0,
      misses: 0,
    });
    expect(faults.set({ mode: 'error', jitterMs: 5 })).not.toHaveProperty('jitterMs');
  });

  it("keeps one fault per service and route; a route's own fault wins over *", () => {
    const faults = registry();
    faults.set({ mode: 'error', status: 503 });
    faults.set({ route: '/.well-known/jwks.json', mode: 'reset' });
    faults.set({ service: 'standby', mode: 'hang' });
    faults.set({ mode: 'error', status: 500 });
    expect(faults.list().map((f) => [f.service, f.route, f.mode, f.status])).toEqual([
      ['main', '*', 'error', 500],
      ['main', '/.well-known/jwks.json', 'reset', undefined],
      ['standby', '*', 'hang', undefined],
    ]);
    expect(faults.take('main', '/.well-known/jwks.json')?.fault.mode).toBe('reset');
    expect(faults.take('main', '/authz/.jwt')?.fault.status).toBe(500);
    expect(faults.take('main', undefined)?.fault.status).toBe(500);
    expect(faults.take('idp', '/token')).toBeUndefined();
    expect(faults.clear({ service: 'main' })).toBe(2);
    expect(faults.clear()).toBe(1);
  });

  it.each<[string, FaultSpec]>([
    ['a route the service does not have', { route: '/nowhere', mode: 'reset' }],
    ['a route of another service', { service: 'idp', route: '/authz/.jwt', mode: 'reset' }],
    ['an unknown service', { service: 'billing' as never, mode: 'reset' }],
  ])('refuses %s with a 400 invalid_request, changing nothing', (_what, spec) => {
    const faults = registry();
    expect(refusal(() => faults.set(spec))).toEqual({ status: 400, error: 'invalid_request' });
    expect(faults.list()).toEqual([]);
  });
});
