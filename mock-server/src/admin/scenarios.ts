import type { FaultSpec } from './fault-registry.js';

/**
 * A named outage drill: the faults it sets. The testing kit (`@standby-licensing/sdk/testing`,
 * `scenarioNames` and `scenarioHandlers`) has the same names, with msw handlers that break the
 * same services the same way (test/testing-kit/scenario-names.test.ts keeps the two lists equal).
 */
export interface Scenario {
  /** What QA rehearses with it, in one sentence. */
  description: string;
  /** The faults it sets; each replaces the fault of its service and route. */
  faults: readonly FaultSpec[];
}

/**
 * The scenarios of `POST /admin/scenarios/<name>` (docs/mock-server.md "Scenarios"),
 * in the order `GET /admin/scenarios` lists them.
 */
export const SCENARIOS = {
  'main-down': {
    description: 'Main resets every connection (TCP RST): a network error on every main request.',
    faults: [{ service: 'main', route: '*', mode: 'reset' }],
  },
  'main-hang': {
    description:
      'Main accepts every request and never answers: each attempt ends at the client timeout.',
    faults: [{ service: 'main', route: '*', mode: 'hang' }],
  },
  'main-503': {
    description: 'Main answers 503 with an HTML error page on every route (a proxy, no backend).',
    faults: [{ service: 'main', route: '*', mode: 'error', status: 503 }],
  },
  'main-rate-limited': {
    description: 'Main answers 429 too_many_requests with Retry-After: 1 on every route.',
    faults: [{ service: 'main', route: '*', mode: 'error', status: 429, retryAfterSeconds: 1 }],
  },
  'main-jwks-outage': {
    description:
      "Only main's JWKS fails (503): leases are issued, but a client without cached keys cannot verify them.",
    faults: [{ service: 'main', route: '/.well-known/jwks.json', mode: 'error', status: 503 }],
  },
  'idp-down': {
    description:
      'The ID-token issuer resets every connection while main and the standby are up (the ID-token grace is for this).',
    faults: [{ service: 'idp', route: '*', mode: 'reset' }],
  },
  'captive-portal': {
    description: 'Main answers 200 with an HTML login page on every route, as a captive portal.',
    faults: [{ service: 'main', route: '*', mode: 'captive-portal' }],
  },
  'standby-slow': {
    description: 'The standby answers every request 2.5 s late (slow, under the 5 s SDK timeout).',
    faults: [{ service: 'standby', route: '*', mode: 'delay', delayMs: 2500 }],
  },
  'standby-down': {
    description: 'The standby resets every connection: with main down too, nothing licenses.',
    faults: [{ service: 'standby', route: '*', mode: 'reset' }],
  },
  'events-down': {
    description: 'The event data service resets every connection: feeds and writes fail.',
    faults: [{ service: 'events', route: '*', mode: 'reset' }],
  },
} as const satisfies Record<string, Scenario>;

/** A scenario's name. */
export type ScenarioName = keyof typeof SCENARIOS;

/** Whether `name` names a scenario. */
export function isScenarioName(name: string): name is ScenarioName {
  return Object.hasOwn(SCENARIOS, name);
}
