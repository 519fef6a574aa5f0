import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The Apache Ant JUnit schema that Jenkins and GitLab read (source named in its header). */
export const JUNIT_XSD = fileURLToPath(new URL('../../fixtures/junit/JUnit.xsd', import.meta.url));

/** What xmllint said about a file. */
export interface XmllintResult {
  valid: boolean;
  /** xmllint's messages (stderr): `<file> validates` or the errors. */
  output: string;
}

/**
 * Validates `file` against the JUnit XSD with Debian's xmllint (libxml2-utils, installed by
 * .ci/run). A missing xmllint throws, naming the package: the check is never silently skipped.
 */
export async function validateJunitFile(file: string): Promise<XmllintResult> {
  try {
    const { stderr } = await run('xmllint', ['--noout', '--schema', JUNIT_XSD, file]);
    return { valid: true, output: stderr };
  } catch (err) {
    const error = err as NodeJS.ErrnoException & { stderr?: string };
    if (error.code === 'ENOENT') {
      throw new Error('xmllint not found: apt-get install libxml2-utils (as .ci/run does)');
    }
    return { valid: false, output: error.stderr ?? String(err) };
  }
}

/** Evaluates an XPath expression over `file` with xmllint (`count(//testsuite)`, `string(...)`). */
export async function xpath(file: string, expression: string): Promise<string> {
  const { stdout } = await run('xmllint', ['--xpath', expression, file]);
  return stdout.trim();
}
