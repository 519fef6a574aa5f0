// Test helper: JUnit reports checked with libxml2's xmllint compiled to WebAssembly (the npm
// package xmllint-wasm), so `npm test` needs no Debian package (issue 32): the same schema check
// and XPath queries as `xmllint --schema` / `xmllint --xpath`, on any machine with Node.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validateXML } from 'xmllint-wasm';

/** The Apache Ant JUnit schema that Jenkins and GitLab read (source named in its header). */
export const JUNIT_XSD = fileURLToPath(new URL('../../fixtures/junit/JUnit.xsd', import.meta.url));

/** What xmllint said about a file. */
export interface XmllintResult {
  valid: boolean;
  /** xmllint's messages (stderr): `<file> validates` or the errors. */
  output: string;
}

let schema: Promise<string> | undefined;

/** `file` as xmllint-wasm takes it: its name (never read as an option) and its text. */
async function input(file: string) {
  return { fileName: basename(file).replace(/^-+/, '_'), contents: await readFile(file, 'utf8') };
}

/**
 * Validates `file` against the JUnit XSD with libxml2 (xmllint-wasm): `valid` and xmllint's own
 * messages, as `xmllint --noout --schema JUnit.xsd <file>` prints them.
 */
export async function validateJunitFile(file: string): Promise<XmllintResult> {
  schema ??= readFile(JUNIT_XSD, 'utf8');
  const result = await validateXML({
    xml: await input(file),
    schema: { fileName: 'JUnit.xsd', contents: await schema },
  });
  return { valid: result.valid, output: result.rawOutput };
}

/** Evaluates an XPath expression over `file` with libxml2 (`count(//testsuite)`, `string(...)`). */
export async function xpath(file: string, expression: string): Promise<string> {
  const xml = await input(file);
  const result = await validateXML({
    xml,
    // xmllint's own --xpath; its result is what it prints on stdout.
    normalization: 'format',
    modifyArguments: () => ['--xpath', expression, xml.fileName],
  });
  return result.normalized.trim();
}
