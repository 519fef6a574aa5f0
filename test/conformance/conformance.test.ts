import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventChecks } from './event-checks.js';
import { mutants, startMutantProxy } from './mutants.js';
import {
  type CheckResult,
  type ConformanceTarget,
  formatReport,
  runConformance,
} from './runner.js';
import { standbyChecks } from './standby-checks.js';
import { startMockTarget } from './targets.js';

const allChecks = [...standbyChecks, ...eventChecks];

describe('conformance suite', () => {
  let mock: Awaited<ReturnType<typeof startMockTarget>>;
  beforeAll(async () => {
    mock = await startMockTarget();
  });
  afterAll(() => mock.close());

  it('passes every check against the mock server, skipping none', async () => {
    const results = await runConformance(mock.target, allChecks);
    const notPassed = results.filter((result) => result.status !== 'pass');
    expect(notPassed, formatReport(results)).toEqual([]);
    expect(results).toHaveLength(allChecks.length);
  });

  it('changes nothing and skips state-changing checks without --allow-management', async () => {
    const readOnly: ConformanceTarget = { ...mock.target, allowManagement: false };
    const results = await runConformance(readOnly, allChecks);
    const skipped = results.filter((r) => r.status === 'skip').map((r) => r.rule);
    const management = allChecks.filter((c) => c.needs?.includes('management')).map((c) => c.rule);
    expect(skipped).toEqual(management);
    expect(
      results.filter((r) => r.status === 'fail'),
      formatReport(results),
    ).toEqual([]);
  });

  describe.each(Object.entries(mutants))('against a mutant: %s', (_name, mutant) => {
    let proxy: Awaited<ReturnType<typeof startMutantProxy>>;
    let results: CheckResult[];
    beforeAll(async () => {
      const origin = new URL(mock.target.standbyUrl!).origin;
      proxy = await startMutantProxy(origin, mutant);
      const target: ConformanceTarget = {
        ...mock.target,
        standbyUrl: `${proxy.origin}/standby`,
        eventUrl: `${proxy.origin}/events`,
      };
      results = await runConformance(target, allChecks);
    });
    afterAll(() => proxy.close());

    it('fails the rule it breaks, by name', () => {
      const broken = results.find((result) => result.rule === mutant.breaks);
      expect(broken, `no check named "${mutant.breaks}"`).toBeDefined();
      expect(broken?.status, formatReport(results)).toBe('fail');
    });
  });
});
