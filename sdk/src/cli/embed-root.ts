import { constants } from 'node:fs';
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CliError, usageError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import {
  chooseOutputFormat,
  isCommonJsScope,
  OUTPUT_FORMATS,
  type OutputFormat,
} from './output-format.js';
import { renderRootModule } from './render-root-module.js';
import {
  describeCertificate,
  findRootCertificate,
  type RootCertificateInfo,
} from './root-certificate.js';

/** Environment variable read when `--api-key` is not given (keeps the key out of `ps`). */
export const API_KEY_ENV = 'STANDBY_LICENSING_API_KEY';

export const EMBED_ROOT_USAGE = `Usage:
  standby-licensing embed-root --standby-url <url> --api-key <key> --out <file> [options]
  standby-licensing embed-root --pem <root.pem> [--key-id <id>] --out <file> [options]
  standby-licensing embed-root --jwks-url <url> --out <file> [options]

Writes a module exporting a root certificate (and its signing key id) for
\`trust: { rootCertificates: [rootCertificate] }\`, so the root lives in the app's binary.
What it writes follows the --out extension: .ts/.mts/.cts TypeScript, .js/.mjs ES module,
.cjs CommonJS, .json JSON, .pem the certificate; --format overrides it.

With --standby-url it calls POST <url>/signing-keys, which makes a NEW signing key on the
standby and makes it the default (older keys stay usable). With --pem it reads a root
certificate you already have. With --jwks-url it takes the root (last x5c entry) of the newest
key of a public JWK set, such as the mock main service's: trust on first use, for development
only; a shipped app embeds a root it got from its vendor out of band.

Options:
  --standby-url <url>     Base URL of the standby service (https; http only for loopback
                          unless --allow-http)
  --api-key <key>         Management API key (default: $${API_KEY_ENV})
  --header-name <name>    Name of the API-key header (default: Service-ApiKey)
  --pem <file>            Read the root certificate from a PEM file instead
  --key-id <id>           Signing key id of that root (with --pem; recommended)
  --jwks-url <url>        Read the root from a JWK set's x5c instead (development only)
  --out <file>            File to write (refuses to overwrite it without --force)
  --format <format>       ${OUTPUT_FORMATS.join('|')}: what to write, whatever the
                          extension (e.g. CommonJS in a .js file: --format cjs)
  --export-name <name>    Name of the exported constant (default: rootCertificate)
  --force                 Overwrite --out if it exists
  --allow-http            Allow a plain-http standby URL on a non-loopback host
  -h, --help              Show this help

Exit codes: 0 done, 1 failed (server, network, files), 2 bad usage.
`;

const OPTIONS = {
  'standby-url': { type: 'string' },
  'api-key': { type: 'string' },
  'header-name': { type: 'string' },
  pem: { type: 'string' },
  'key-id': { type: 'string' },
  'jwks-url': { type: 'string' },
  out: { type: 'string' },
  format: { type: 'string' },
  'export-name': { type: 'string' },
  force: { type: 'boolean' },
  'allow-http': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const FORMAT_NAMES: Readonly<Record<OutputFormat, string>> = {
  ts: 'TypeScript',
  esm: 'ES module',
  cjs: 'CommonJS',
  json: 'JSON',
  pem: 'PEM',
};

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** What to fetch the root from, once the command line is checked. */
type Source =
  | { kind: 'standby'; url: URL; apiKey: string; headerName: string }
  | { kind: 'pem'; file: string; keyId: string | undefined }
  | { kind: 'jwks'; url: URL };

interface Plan {
  source: Source;
  out: string;
  format: OutputFormat;
  /** The format came from a `.js` extension (Node may read that file as CommonJS). */
  fromJsExtension: boolean;
  exportName: string;
  force: boolean;
}

function parse(argv: readonly string[], io: CliIo): Plan | 'help' {
  let values: ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'];
  try {
    ({ values } = parseArgs({ args: [...argv], options: OPTIONS, strict: true }));
  } catch (error) {
    throw usageError((error as Error).message);
  }
  if (values.help) return 'help';
  if (values.out === undefined) throw usageError('--out <file> is required');
  const format = chooseOutputFormat(values.out, values.format);
  const exportName = values['export-name'] ?? 'rootCertificate';
  if (!IDENTIFIER.test(exportName)) {
    throw usageError(`--export-name must be a JavaScript identifier, got ${exportName}`);
  }
  if (format === 'pem' && values['export-name'] !== undefined) {
    throw usageError('--export-name does not go with a .pem file: it exports nothing');
  }
  const plan = {
    out: resolve(values.out),
    format,
    fromJsExtension: values.format === undefined && /\.js$/i.test(values.out),
    exportName,
    force: values.force === true,
  };

  const sources = [values['standby-url'], values.pem, values['jwks-url']].filter(
    (value) => value !== undefined,
  );
  if (sources.length !== 1) {
    throw usageError('give exactly one of --standby-url, --pem or --jwks-url');
  }
  if (values['jwks-url'] !== undefined) {
    for (const flag of ['api-key', 'header-name', 'key-id'] as const) {
      if (values[flag] !== undefined) throw usageError(`--${flag} does not go with --jwks-url`);
    }
    const url = parseHttpUrl(values['jwks-url'], '--jwks-url', values['allow-http'] === true);
    return { ...plan, source: { kind: 'jwks', url } };
  }
  if (values.pem !== undefined) {
    for (const flag of ['api-key', 'header-name', 'allow-http'] as const) {
      if (values[flag] !== undefined)
        throw usageError(`--${flag} goes with --standby-url, not --pem`);
    }
    return { ...plan, source: { kind: 'pem', file: resolve(values.pem), keyId: values['key-id'] } };
  }
  if (values['key-id'] !== undefined) {
    throw usageError('--key-id goes with --pem; the standby names the new key itself');
  }
  const url = parseHttpUrl(values['standby-url']!, '--standby-url', values['allow-http'] === true);
  const apiKey = values['api-key'] ?? io.env[API_KEY_ENV];
  if (apiKey === undefined || apiKey === '') {
    throw usageError(`--api-key <key> (or $${API_KEY_ENV}) is required with --standby-url`);
  }
  const headerName = values['header-name'] ?? 'Service-ApiKey';
  if (!HEADER_NAME.test(headerName)) throw usageError(`--header-name is not a valid header name`);
  return { ...plan, source: { kind: 'standby', url, apiKey, headerName } };
}

function parseHttpUrl(text: string, flag: string, allowHttp: boolean): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw usageError(`${flag} is not a URL: ${text}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw usageError(`${flag} must be an http(s) URL`);
  }
  if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname) && !allowHttp) {
    // The root is the app's trust anchor: fetching it in clear text lets anyone on the path
    // substitute their own.
    throw usageError(`${flag} uses plain http; use https (or --allow-http if you must)`);
  }
  return url;
}

async function checkOut(plan: Plan): Promise<void> {
  try {
    // Like any code generator, create the output folder (e.g. src/roots/) when missing.
    await mkdir(dirname(plan.out), { recursive: true });
    await access(dirname(plan.out), constants.W_OK);
  } catch (error) {
    throw new CliError(1, `cannot write to the folder of ${plan.out}`, { cause: error });
  }
  if (plan.force) return;
  const exists = await access(plan.out).then(
    () => true,
    () => false,
  );
  if (exists) throw new CliError(1, `${plan.out} exists; pass --force to overwrite it`);
}

interface SigningKeyAnswer {
  keyId: string;
  rootCertificate: string;
}

function describeApiError(status: number, body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown; error_description?: unknown };
    if (typeof parsed.error === 'string') {
      const description =
        typeof parsed.error_description === 'string' ? `: ${parsed.error_description}` : '';
      return `HTTP ${status} ${parsed.error}${description}`;
    }
  } catch {
    // Not an ApiError body; show the start of it below.
  }
  const excerpt = body.trim().slice(0, 200);
  return `HTTP ${status}${excerpt === '' ? '' : `: ${excerpt}`}`;
}

async function requestSigningKey(
  source: Extract<Source, { kind: 'standby' }>,
  io: CliIo,
): Promise<SigningKeyAnswer> {
  const endpoint = new URL(`${source.url.href.replace(/\/+$/, '')}/signing-keys`);
  const [response, body] = await fetchText(
    endpoint,
    { method: 'POST', headers: { [source.headerName]: source.apiKey, Accept: 'application/json' } },
    io,
  );
  if (response.status !== 201 && response.status !== 200) {
    throw new CliError(
      1,
      `the standby refused to make a signing key: ${describeApiError(response.status, body)}`,
    );
  }
  let parsed: Partial<Record<keyof SigningKeyAnswer, unknown>>;
  try {
    parsed = JSON.parse(body) as typeof parsed;
  } catch (error) {
    throw new CliError(1, `the standby's answer is not JSON (HTTP ${response.status})`, {
      cause: error,
    });
  }
  if (typeof parsed.keyId !== 'string' || typeof parsed.rootCertificate !== 'string') {
    throw new CliError(1, "the standby's answer has no keyId and rootCertificate strings");
  }
  return { keyId: parsed.keyId, rootCertificate: parsed.rootCertificate };
}

async function fetchText(url: URL, init: RequestInit, io: CliIo): Promise<[Response, string]> {
  try {
    const response = await io.fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
    return [response, await response.text()];
  } catch (error) {
    const cause = (error as { cause?: { code?: unknown } }).cause;
    const code = typeof cause?.code === 'string' ? ` (${cause.code})` : '';
    throw new CliError(1, `cannot reach ${url.href}: ${(error as Error).message}${code}`, {
      cause: error,
    });
  }
}

/** The root (last `x5c` entry) of the first key of a JWK set, as PEM. */
async function readJwksRoot(url: URL, io: CliIo): Promise<string> {
  const [response, body] = await fetchText(url, { headers: { Accept: 'application/json' } }, io);
  if (response.status !== 200) {
    throw new CliError(
      1,
      `the JWK set could not be read: ${describeApiError(response.status, body)}`,
    );
  }
  let x5c: unknown;
  try {
    x5c = (JSON.parse(body) as { keys?: Array<{ x5c?: unknown }> }).keys?.[0]?.x5c;
  } catch (error) {
    throw new CliError(1, `${url.href} did not answer JSON`, { cause: error });
  }
  const last = Array.isArray(x5c) ? x5c.at(-1) : undefined;
  if (typeof last !== 'string') throw new CliError(1, `the first key of ${url.href} has no x5c`);
  const lines = last.match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----`;
}

async function loadRoot(
  plan: Plan,
  io: CliIo,
): Promise<{ root: RootCertificateInfo; keyId: string | undefined; source: string }> {
  const { source } = plan;
  if (source.kind === 'pem') {
    let text: string;
    try {
      text = await readFile(source.file, 'utf8');
    } catch (error) {
      throw new CliError(1, `cannot read ${source.file}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    try {
      return { root: findRootCertificate(text), keyId: source.keyId, source: source.file };
    } catch (error) {
      throw new CliError(1, `${source.file}: ${(error as Error).message}`, { cause: error });
    }
  }
  if (source.kind === 'jwks') {
    try {
      return {
        root: describeCertificate(await readJwksRoot(source.url, io)),
        keyId: undefined,
        source: `GET ${source.url.href}`,
      };
    } catch (error) {
      if (error instanceof CliError) throw error;
      throw new CliError(1, `${source.url.href}: ${(error as Error).message}`, { cause: error });
    }
  }
  const answer = await requestSigningKey(source, io);
  let root: RootCertificateInfo;
  try {
    root = describeCertificate(answer.rootCertificate);
  } catch (error) {
    throw new CliError(1, `the standby's rootCertificate: ${(error as Error).message}`, {
      cause: error,
    });
  }
  // Embeds what the standby sent, with `\n` line ends and surrounding whitespace trimmed.
  return {
    root,
    keyId: answer.keyId,
    source: `POST ${source.url.href.replace(/\/+$/, '')}/signing-keys`,
  };
}

/**
 * The `embed-root` command: gets a root certificate (a new standby signing key, or a PEM file)
 * and writes a module embedding it, in the format `--out`'s extension (or `--format`) names.
 * Resolves the exit code; reports on `io`.
 *
 * @param argv - the arguments after `embed-root`.
 * @example
 * process.exitCode = await embedRoot(['--pem', 'root.pem', '--key-id', 'k1', '--out', 'src/root.ts'], processIo());
 */
export async function embedRoot(argv: readonly string[], io: CliIo): Promise<number> {
  const plan = parse(argv, io);
  if (plan === 'help') {
    io.stdout(EMBED_ROOT_USAGE);
    return 0;
  }
  // Check the output first: a refused overwrite must not leave a new key on the standby.
  await checkOut(plan);
  const { root, keyId, source } = await loadRoot(plan, io);
  const warnings: string[] = [];
  if (!root.selfIssued || !root.isCa) {
    warnings.push('the certificate is not a self-issued CA certificate; is it really the root?');
  }
  if (plan.source.kind === 'jwks') {
    warnings.push('the root came from the JWK set itself (trust on first use): development only');
  } else if (keyId === undefined) {
    warnings.push('no --key-id: the SDK cannot pin this root to its signing key after rotation');
  }
  if (plan.fromJsExtension && (await isCommonJsScope(plan.out))) {
    warnings.push(
      `${plan.out} is an ES module, but the nearest package.json has no "type": "module", so Node would load it as CommonJS: use .mjs, .cjs or --format cjs unless a bundler reads it`,
    );
  }
  if (root.notAfter.getTime() <= io.now().getTime()) {
    throw new CliError(1, `the certificate expired on ${root.notAfter.toISOString()}`);
  }
  const module = renderRootModule({
    root,
    ...(keyId === undefined ? {} : { keyId }),
    source,
    exportName: plan.exportName,
    generatedAt: io.now(),
    format: plan.format,
  });
  try {
    await writeFile(plan.out, module, { flag: plan.force ? 'w' : 'wx' });
  } catch (error) {
    throw new CliError(1, `cannot write ${plan.out}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  for (const warning of warnings) io.stderr(`standby-licensing embed-root: warning: ${warning}\n`);
  const what = plan.format === 'pem' ? 'the root certificate' : plan.exportName;
  io.stdout(
    `Wrote ${plan.out} (${FORMAT_NAMES[plan.format]}): ${what}${keyId === undefined ? '' : ` (key ${keyId})`}, expires ${root.notAfter.toISOString().slice(0, 10)}\n`,
  );
  return 0;
}
