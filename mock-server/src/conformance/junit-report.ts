import { hostname as osHostname } from 'node:os';
import type { CheckResult } from './runner.js';

/** Options of {@link toJunitXml}. */
export interface JunitOptions {
  /** When the run started. Default: now. */
  timestamp?: Date;
  /** The host that ran the checks. Default: `os.hostname()`, or `localhost`. */
  hostname?: string;
}

/** The `package` attribute of every test suite. */
const PACKAGE = 'standby-licensing-conformance';

// XML 1.0 allows tab, line feed, carriage return and the characters from U+0020 up (less the
// surrogates handled by the string itself and U+FFFE/U+FFFF); anything else is dropped.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters removed
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

function text(value: string): string {
  return value
    .replace(NOT_XML, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

function attribute(value: string): string {
  return text(value)
    .replace(/"/g, '&quot;')
    .replace(/\t/g, '&#9;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;');
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

/** `YYYY-MM-DDTHH:MM:SS` in UTC, without a zone: the only form the Ant schema accepts. */
function isoSeconds(date: Date): string {
  return date.toISOString().slice(0, 19);
}

function testcase(result: CheckResult): string {
  const open = `    <testcase name="${attribute(result.id)}" classname="${attribute(result.section)}" time="${seconds(result.ms)}"`;
  const message = result.message ?? '';
  switch (result.status) {
    case 'passed':
      return `${open}/>`;
    case 'failed':
      return `${open}>\n      <failure message="${attribute(message)}" type="CheckFailure">${text(`${result.rule}\n${message}`)}</failure>\n    </testcase>`;
    case 'skipped':
      return `${open}>\n      <skipped message="${attribute(message)}"/>\n    </testcase>`;
    case 'expected-failure':
      // Not a failure of the run, so not <failure> (which would fail the CI job): reported as
      // skipped, saying it failed as the expected-failures file says it does.
      return `${open}>\n      <skipped message="${attribute(`expected failure: ${message}`)}"/>\n    </testcase>`;
  }
}

/**
 * JUnit XML as Jenkins and GitLab read it, valid against the Apache Ant JUnit schema
 * (test/fixtures/junit/JUnit.xsd): one `<testsuite>` per section (`name`, `tests`,
 * `failures`, `errors`, `skipped`, `time`), one `<testcase>` per check (`name` = id, `classname` =
 * section, `time` in seconds). A failed check holds one `<failure message>` with the detail; a
 * skipped check `<skipped message>` naming the options it needs; an expected failure is reported
 * as skipped too (`message` starts with `expected failure:`), since it does not fail the run.
 *
 * @example
 * await writeFile('conformance.xml', toJunitXml(results));
 */
export function toJunitXml(results: readonly CheckResult[], options: JunitOptions = {}): string {
  const timestamp = isoSeconds(options.timestamp ?? new Date());
  const host = options.hostname ?? (osHostname() || 'localhost');
  const sections = new Map<string, CheckResult[]>();
  for (const result of results) {
    const list = sections.get(result.section) ?? [];
    list.push(result);
    sections.set(result.section, list);
  }
  const suites = [...sections].map(([section, checks], id) => {
    const failures = checks.filter((c) => c.status === 'failed').length;
    const skipped = checks.filter(
      (c) => c.status === 'skipped' || c.status === 'expected-failure',
    ).length;
    const ms = checks.reduce((sum, c) => sum + c.ms, 0);
    return [
      `  <testsuite name="${attribute(section)}" package="${PACKAGE}" id="${id}" timestamp="${timestamp}" hostname="${attribute(host)}" tests="${checks.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${seconds(ms)}">`,
      '    <properties/>',
      ...checks.map(testcase),
      '    <system-out/>',
      '    <system-err/>',
      '  </testsuite>',
    ].join('\n');
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n${suites.join('\n')}\n</testsuites>\n`;
}

/** The check id and section of the one testcase a report of an unreachable target holds. */
export const UNREACHABLE_CASE = { id: 'target.reachable', section: 'Conformance: target' } as const;

/**
 * JUnit XML for a run that checked nothing because the target cannot be reached: one testsuite
 * (`Conformance: target`) with one errored testcase (`target.reachable`) whose `<error>` names the
 * target and why, so a CI report step shows the reason instead of "no report found".
 *
 * @param target - the URL that gave no answer, e.g. `http://standby.test/standby/enabled`
 * @param message - what happened, e.g. `--standby-url: cannot reach ... (ECONNREFUSED)`
 * @example
 * await writeFile('conformance.xml', toUnreachableJunitXml(url, error.message));
 */
export function toUnreachableJunitXml(
  target: string,
  message: string,
  options: JunitOptions = {},
): string {
  const timestamp = isoSeconds(options.timestamp ?? new Date());
  const host = options.hostname ?? (osHostname() || 'localhost');
  const { id, section } = UNREACHABLE_CASE;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<testsuites>',
    `  <testsuite name="${attribute(section)}" package="${PACKAGE}" id="0" timestamp="${timestamp}" hostname="${attribute(host)}" tests="1" failures="0" errors="1" skipped="0" time="0.000">`,
    '    <properties/>',
    `    <testcase name="${id}" classname="${attribute(section)}" time="0.000">`,
    `      <error message="${attribute(`cannot reach the target ${target}`)}" type="UnreachableTarget">${text(`${message}\nNo check ran: the target gave no HTTP answer.`)}</error>`,
    '    </testcase>',
    '    <system-out/>',
    '    <system-err/>',
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
