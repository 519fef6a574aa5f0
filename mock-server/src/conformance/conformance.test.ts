import { mutants, startMutantProxy } from '@test/helpers/conformance/mutants.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allChecks } from './checks.js';
import { type CheckResult, type ConformanceTarget, runConformance } from './runner.js';
import { startMockTarget } from './targets.js';
import { formatReport } from './text-report.js';

const failedIds = (results: CheckResult[]) =>
  results.filter((result) => result.status === 'failed').map((result) => result.id);

describe('conformance checks', () => {
  it('have unique, stable-looking ids (<service>.<area>.<rule>) and a section', () => {
    const ids = allChecks.map((check) => check.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const check of allChecks) {
      expect(check.id).toMatch(/^(standby|events)\.[a-z0-9-]+\.[a-z0-9-]+$/);
      expect(check.id.startsWith(`${check.service}.`)).toBe(true);
      expect(check.section.startsWith(check.service === 'standby' ? 'Standby: ' : 'Events: ')).toBe(
        true,
      );
    }
  });
});

describe('conformance suite', () => {
  let mock: Awaited<ReturnType<typeof startMockTarget>>;
  beforeAll(async () => {
    mock = await startMockTarget();
  });
  afterAll(() => mock.close());

  it('passes every check against the mock server, skipping none', async () => {
    const results = await runConformance(mock.target, allChecks);
    const notPassed = results.filter((result) => result.status !== 'passed');
    expect(notPassed, formatReport(results)).toEqual([]);
    expect(results).toHaveLength(allChecks.length);
  });

  it('changes nothing and skips state-changing checks without --allow-management', async () => {
    const readOnly: ConformanceTarget = { ...mock.target, allowManagement: false };
    const results = await runConformance(readOnly, allChecks);
    const skipped = results.filter((r) => r.status === 'skipped');
    const management = allChecks.filter((c) => c.needs?.includes('management')).map((c) => c.id);
    expect(skipped.map((r) => r.id)).toEqual(management);
    for (const result of skipped) expect(result.message).toBe('needs --allow-management');
    expect(failedIds(results), formatReport(results)).toEqual([]);
  });

  it('skips every check of a service whose URL is missing, naming each missing option', async () => {
    const { standbyUrl: _, signIdToken: __, ...eventsOnly } = mock.target;
    const results = await runConformance({ ...eventsOnly, allowManagement: false }, allChecks);
    const standby = results.filter((r) => r.id.startsWith('standby.'));
    expect(standby.every((r) => r.status === 'skipped')).toBe(true);
    expect(standby.find((r) => r.id === 'standby.auth.id-token-grace')?.message).toBe(
      'needs --standby-url, --idp-private-key',
    );
    expect(standby.find((r) => r.id === 'standby.management.enable-disable')?.message).toBe(
      'needs --standby-url, --allow-management',
    );
    expect(failedIds(results), formatReport(results)).toEqual([]);
  });

  it("skips the standby's usage checks when the target gives no reader key, naming the option", async () => {
    const { signReadToken: _, ...noReader } = mock.target;
    const usage = (results: CheckResult[]) =>
      results.filter((r) => r.id.startsWith('standby.usage.'));
    const withoutReader = usage(await runConformance(noReader, allChecks));
    expect(withoutReader.length).toBeGreaterThanOrEqual(5);
    for (const result of withoutReader) {
      expect(result.status).toBe('skipped');
      expect(result.message).toBe('needs --event-reader-private-key (or --event-read-token)');
    }
    const { eventUrl: __, ...standbyOnly } = noReader;
    const standbyAlone = usage(await runConformance(standbyOnly, allChecks));
    expect(standbyAlone.map((r) => r.message)).toContain(
      'needs --event-url, --event-reader-private-key (or --event-read-token)',
    );
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

    it('fails exactly the checks of the rule it breaks, by id', () => {
      expect(mutant.breaks.length).toBeGreaterThan(0);
      expect(failedIds(results), formatReport(results)).toEqual(mutant.breaks);
    });
  });
});
