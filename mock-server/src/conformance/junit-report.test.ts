import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateJunitFile, xpath } from '../../test/helpers/conformance/xmllint.js';
import { toJunitXml } from './junit-report.js';
import type { CheckResult } from './runner.js';

const results: CheckResult[] = [
  { id: 'standby.a.ok', section: 'Standby: one', rule: 'r1', status: 'passed', ms: 12.4 },
  {
    id: 'standby.a.broken',
    section: 'Standby: one',
    rule: 'answers <json> & "quotes"',
    status: 'failed',
    message: 'expected HTTP 401, got 200 <html>&"\'\nsecond line\u0001 with a control character',
    ms: 3,
  },
  {
    id: 'events.b.skipped',
    section: 'Events: two',
    rule: 'r3',
    status: 'skipped',
    message: 'needs --event-url, --allow-management',
    ms: 0,
  },
  {
    id: 'events.b.pinned',
    section: 'Events: two',
    rule: 'r4',
    status: 'expected-failure',
    message: 'known bug',
    ms: 1000,
  },
];

describe('toJunitXml', () => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'junit-'));
    file = join(dir, 'report.xml');
    const xml = toJunitXml(results, {
      timestamp: new Date('2026-11-22T10:11:12.345Z'),
      hostname: 'ci-runner',
    });
    await writeFile(file, xml);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('is valid against the Ant/Jenkins JUnit schema (xmllint)', async () => {
    const result = await validateJunitFile(file);
    expect(result.output).toContain('validates');
    expect(result.valid).toBe(true);
  });

  it('is checked for real: the schema refuses a report without hostname', async () => {
    const broken = join(dir, 'broken.xml');
    await writeFile(broken, toJunitXml(results).replace(/ hostname="[^"]*"/g, ''));
    const result = await validateJunitFile(broken);
    expect(result.valid).toBe(false);
    expect(result.output).toContain("attribute 'hostname' is required");
  });

  it('has one testsuite per section with tests, failures, skipped and time', async () => {
    expect(await xpath(file, 'count(/testsuites/testsuite)')).toBe('2');
    const suite = (name: string, attr: string) =>
      xpath(file, `string(/testsuites/testsuite[@name="${name}"]/@${attr})`);
    expect(await suite('Standby: one', 'tests')).toBe('2');
    expect(await suite('Standby: one', 'failures')).toBe('1');
    expect(await suite('Standby: one', 'skipped')).toBe('0');
    expect(await suite('Standby: one', 'time')).toBe('0.015');
    expect(await suite('Standby: one', 'timestamp')).toBe('2026-11-22T10:11:12');
    expect(await suite('Events: two', 'skipped')).toBe('2');
    expect(await suite('Events: two', 'failures')).toBe('0');
  });

  it('names each testcase by check id with the section as classname', async () => {
    expect(await xpath(file, 'count(//testcase)')).toBe('4');
    expect(await xpath(file, 'string(//testcase[@name="standby.a.ok"]/@classname)')).toBe(
      'Standby: one',
    );
    expect(await xpath(file, 'string(//testcase[@name="standby.a.ok"]/@time)')).toBe('0.012');
    expect(await xpath(file, 'count(//testcase[@name="standby.a.ok"]/*)')).toBe('0');
  });

  it('gives a failed check one failure with the message, escaped, control characters dropped', async () => {
    expect(await xpath(file, 'count(//testcase[@name="standby.a.broken"]/failure)')).toBe('1');
    const message = await xpath(
      file,
      'string(//testcase[@name="standby.a.broken"]/failure/@message)',
    );
    expect(message).toBe(
      'expected HTTP 401, got 200 <html>&"\'\nsecond line with a control character',
    );
  });

  it('marks skipped and expected-failure checks <skipped> with their reason', async () => {
    expect(await xpath(file, 'string(//testcase[@name="events.b.skipped"]/skipped/@message)')).toBe(
      'needs --event-url, --allow-management',
    );
    expect(await xpath(file, 'string(//testcase[@name="events.b.pinned"]/skipped/@message)')).toBe(
      'expected failure: known bug',
    );
    expect(await xpath(file, 'count(//failure)')).toBe('1');
  });
});
