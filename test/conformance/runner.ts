/**
 * The conformance runner: a list of black-box checks, each tied to one rule of the spec or
 * DECISIONS.md, run in order against a deployment and reported per spec section.
 */

/** What a check may do beyond reading. */
export type Capability =
  /** State-changing calls: enable/disable, new signing keys, event writes. */
  | 'management'
  /** Minting ID tokens with arbitrary claims (a trusted issuer's private key). */
  | 'idTokenSigner'
  /** A ServiceKeyHash accepted by the standby. */
  | 'serviceKeyHash'
  /** Minting event read JWTs (a trusted reader's private key). */
  | 'readerSigner';

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
  /** Spec section, e.g. `Standby: authentication`. */
  section: string;
  /** The rule, stated as a sentence naming the expected behaviour. */
  rule: string;
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

/** The outcome of one check. */
export interface CheckResult {
  section: string;
  rule: string;
  status: 'pass' | 'fail' | 'skip';
  detail?: string;
}

function missing(target: ConformanceTarget, needs: Capability[] = []): string | undefined {
  for (const need of needs) {
    if (need === 'management' && !target.allowManagement) return 'needs --allow-management';
    if (need === 'idTokenSigner' && !target.signIdToken) return 'needs --idp-private-key';
    if (need === 'serviceKeyHash' && !target.serviceKeyHash) return 'needs --service-key-hash';
    if (need === 'readerSigner' && !target.signReadToken) return 'needs --event-reader-private-key';
  }
  return undefined;
}

/** Runs every check in order and returns one result per check. */
export async function runConformance(
  target: ConformanceTarget,
  checks: Check[],
): Promise<CheckResult[]> {
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
    const service = check.section.startsWith('Standby') ? target.standbyUrl : target.eventUrl;
    const reason = service
      ? missing(target, check.needs)
      : check.section.startsWith('Standby')
        ? 'needs --standby-url'
        : 'needs --event-url';
    if (reason) {
      results.push({ section: check.section, rule: check.rule, status: 'skip', detail: reason });
      continue;
    }
    try {
      await check.run(ctx);
      results.push({ section: check.section, rule: check.rule, status: 'pass' });
    } catch (err) {
      const skipped = err instanceof CheckSkipped;
      results.push({
        section: check.section,
        rule: check.rule,
        status: skipped ? 'skip' : 'fail',
        detail: err instanceof Error ? err.message : String(err),
      });
    }
  }
  return results;
}

/** A readable report: one block per section, one line per rule, then the totals line. */
export function formatReport(results: CheckResult[]): string {
  const lines: string[] = [];
  let section = '';
  for (const result of results) {
    if (result.section !== section) {
      section = result.section;
      lines.push('', section);
    }
    const mark = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP' }[result.status];
    lines.push(`  ${mark}  ${result.rule}${result.detail ? `\n          ${result.detail}` : ''}`);
  }
  const count = (status: CheckResult['status']) =>
    results.filter((r) => r.status === status).length;
  lines.push('', `${count('pass')} passed, ${count('fail')} failed, ${count('skip')} skipped`);
  return lines.join('\n');
}
