/**
 * The conformance runner: a list of black-box checks, each tied to one rule of the protocol
 * (docs/protocol.md) and known by a stable id, run in order against a deployment and reported
 * per section (docs/conformance.md).
 */

/** What a check may do or use beyond reading with the target's URLs. */
export type Capability =
  /** State-changing calls: enable/disable, new signing keys, event writes. */
  | 'management'
  /** Minting ID tokens with arbitrary claims (a trusted issuer's private key). */
  | 'idTokenSigner'
  /** A ServiceKeyHash accepted by the standby. */
  | 'serviceKeyHash'
  /** Minting event read JWTs (a trusted reader's private key). */
  | 'readerSigner'
  /** The event service, beside the check's own service (`--event-url`). */
  | 'events'
  /** Reading any feed: a trusted reader's private key or a read JWT with `"*": true`. */
  | 'eventReader';

/** The service a check talks to; its base URL option is required. */
export type Service = 'standby' | 'events';

/** Everything a check needs to reach and authenticate against the deployment. */
export interface ConformanceTarget {
  standbyUrl?: string;
  eventUrl?: string;
  apiKey?: string;
  /** A valid ID token for the standby (used when no signer is given). */
  idToken?: string;
  serviceKeyHash?: string;
  /** Signs an RS256 ID token with a key the standby trusts; claims override the defaults. */
  signIdToken?: (
    claims: Record<string, unknown>,
    header?: Record<string, unknown>,
  ) => Promise<string>;
  /** Client id that ID tokens' `aud` must contain. */
  clientId?: string;
  /** Issuer the standby trusts. */
  issuer?: string;
  /** A read JWT with `"*": true` (used when no reader signer is given). */
  readToken?: string;
  /** Signs an event read JWT with a trusted reader key. */
  signReadToken?: (claims: Record<string, unknown>) => Promise<string>;
  /** Signs a compact JWS over an event body with a trusted writer key (when writers are checked). */
  signEvents?: (body: unknown, header?: Record<string, unknown>) => Promise<string>;
  /** Run state-changing checks. Default false: a real deployment is left as it was. */
  allowManagement?: boolean;
  /** How long to wait for an enable/disable to take effect, in ms. Default 10 000. */
  propagationTimeoutMs?: number;
  fetch?: typeof fetch;
}

/** One rule checked against the deployment. */
export interface Check {
  /**
   * Stable id, `<service>.<area>.<rule>` in lower-case kebab words (`standby.auth.id-token-grace`):
   * what `--list` prints, JUnit names the test case and an expected-failures file lists.
   */
  id: string;
  /** Spec section, e.g. `Standby: authentication` (the JUnit test suite and class name). */
  section: string;
  /** The rule, stated as a sentence naming the expected behaviour. */
  rule: string;
  service: Service;
  needs?: Capability[];
  run(ctx: CheckContext): Promise<void>;
}

/** A failed expectation; its message names what was seen. */
export class CheckFailure extends Error {
  override name = 'CheckFailure';
}

/** A check that cannot run against this deployment (e.g. dormant and no management allowed). */
export class CheckSkipped extends Error {
  override name = 'CheckSkipped';
}

/** Target plus resolved helpers handed to each check. */
export interface CheckContext extends ConformanceTarget {
  fetch: typeof fetch;
  /** An ID token the standby accepts (minted when a signer is given). */
  validIdToken(): Promise<string>;
  /** A read JWT for every feed (minted when a reader signer is given). */
  validReadToken(): Promise<string>;
}

/** How one check ended (the `status` of the JSON report). */
export type CheckStatus = 'passed' | 'failed' | 'skipped' | 'expected-failure';

/** The outcome of one check. */
export interface CheckResult {
  id: string;
  section: string;
  rule: string;
  status: CheckStatus;
  /** Why it failed or was skipped. */
  message?: string;
  /** Time the check took, in ms (0 when skipped before it ran). */
  ms: number;
}

/** Options of {@link runConformance}. */
export interface RunOptions {
  /**
   * Ids of checks known to fail on this deployment: their failure is `expected-failure`, and a
   * listed check that passes is `failed` (so the list stays true). Default: none.
   */
  expectedFailures?: ReadonlySet<string>;
  /** Called with each result as soon as its check ends (progress output). */
  onResult?: (result: CheckResult) => void;
}

const SERVICE_OPTION: Record<Service, keyof ConformanceTarget> = {
  standby: 'standbyUrl',
  events: 'eventUrl',
};

/** What satisfies each capability (any one of the fields), and the option that gives it. */
const CAPABILITY_OPTION: Record<Capability, [ReadonlyArray<keyof ConformanceTarget>, string]> = {
  management: [['allowManagement'], '--allow-management'],
  idTokenSigner: [['signIdToken'], '--idp-private-key'],
  serviceKeyHash: [['serviceKeyHash'], '--service-key-hash'],
  readerSigner: [['signReadToken'], '--event-reader-private-key'],
  events: [['eventUrl'], '--event-url'],
  eventReader: [
    ['signReadToken', 'readToken'],
    '--event-reader-private-key (or --event-read-token)',
  ],
};

/** The options `check` needs that `target` lacks, as a skip message (undefined when none). */
export function missingOptions(target: ConformanceTarget, check: Check): string | undefined {
  const missing: string[] = [];
  if (!target[SERVICE_OPTION[check.service]]) {
    missing.push(check.service === 'standby' ? '--standby-url' : '--event-url');
  }
  for (const need of check.needs ?? []) {
    const [fields, option] = CAPABILITY_OPTION[need];
    if (!fields.some((field) => target[field])) missing.push(option);
  }
  return missing.length > 0 ? `needs ${missing.join(', ')}` : undefined;
}

/** Runs one check and classifies its outcome (before expected failures are applied). */
async function runOne(check: Check, ctx: CheckContext): Promise<CheckResult> {
  const base = { id: check.id, section: check.section, rule: check.rule };
  const reason = missingOptions(ctx, check);
  if (reason) return { ...base, status: 'skipped', message: reason, ms: 0 };
  const started = performance.now();
  try {
    await check.run(ctx);
    return { ...base, status: 'passed', ms: performance.now() - started };
  } catch (err) {
    return {
      ...base,
      status: err instanceof CheckSkipped ? 'skipped' : 'failed',
      message: err instanceof Error ? err.message : String(err),
      ms: performance.now() - started,
    };
  }
}

/** Applies the expected-failures list to one result. */
function settle(result: CheckResult, expected: ReadonlySet<string>): CheckResult {
  if (!expected.has(result.id)) return result;
  if (result.status === 'failed') return { ...result, status: 'expected-failure' };
  if (result.status === 'passed') {
    return {
      ...result,
      status: 'failed',
      message: 'passed, but the expected-failures file lists it: remove it from the file',
    };
  }
  return result;
}

/**
 * Runs every check in order and returns one result per check. A check whose options are missing
 * is `skipped` with a message naming them.
 *
 * @example
 * const results = await runConformance(target, [...standbyChecks, ...eventChecks]);
 * const ok = !results.some((result) => result.status === 'failed');
 */
export async function runConformance(
  target: ConformanceTarget,
  checks: readonly Check[],
  options: RunOptions = {},
): Promise<CheckResult[]> {
  const expected = options.expectedFailures ?? new Set<string>();
  const ctx: CheckContext = {
    ...target,
    fetch: target.fetch ?? fetch,
    async validIdToken() {
      if (target.signIdToken) return target.signIdToken({});
      if (target.idToken) return target.idToken;
      throw new CheckSkipped('needs --id-token or --idp-private-key');
    },
    async validReadToken() {
      if (target.signReadToken) {
        return target.signReadToken({ '*': true, exp: Math.floor(Date.now() / 1000) + 600 });
      }
      if (target.readToken) return target.readToken;
      throw new CheckSkipped('needs --event-read-token or --event-reader-private-key');
    },
  };
  const results: CheckResult[] = [];
  for (const check of checks) {
    const result = settle(await runOne(check, ctx), expected);
    results.push(result);
    options.onResult?.(result);
  }
  return results;
}

/** True when the run passes: nothing `failed` (expected failures and skips are fine). */
export function runPassed(results: readonly CheckResult[]): boolean {
  return !results.some((result) => result.status === 'failed');
}
