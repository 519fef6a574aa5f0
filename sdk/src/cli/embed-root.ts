import { constants } from 'node:fs';
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CliError, usageError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { createSigningKey, type ManagementAccess, standbyEndpoint } from './create-signing-key.js';
import { compareExistingOutput, type ExistingOutput } from './existing-output.js';
import { describeApiError, fetchText } from './fetch-text.js';
import {
  chooseOutputFormat,
  isCommonJsScope,
  OUTPUT_FORMATS,
  type OutputFormat,
} from './output-format.js';
import { type CallerCredential, readCurrentSigningKey } from './read-current-signing-key.js';
import { renderRootModule } from './render-root-module.js';
import {
  describeCertificate,
  findRootCertificate,
  type RootCertificateInfo,
} from './root-certificate.js';

/** Environment variable read when `--api-key` is not given (keeps the key out of `ps`). */
export const API_KEY_ENV = 'STANDBY_LICENSING_API_KEY';
/** Environment variable read when `--id-token` is not given. */
export const ID_TOKEN_ENV = 'STANDBY_LICENSING_ID_TOKEN';
/** Environment variable read when `--service-key-hash` is not given. */
export const SERVICE_KEY_HASH_ENV = 'STANDBY_LICENSING_SERVICE_KEY_HASH';

export const EMBED_ROOT_USAGE = `Usage:
  standby-licensing embed-root --standby-url <url> --id-token <jwt> --out <file> [options]
  standby-licensing embed-root --standby-url <url> --new-key --api-key <key> --out <file> [options]
  standby-licensing embed-root --pem <root.pem> [--key-id <id>] --out <file> [options]
  standby-licensing embed-root --jwks-url <url> --out <file> [options]

Writes a module exporting a root certificate (and its signing key id) for
\`trust: { rootCertificates: [rootCertificate] }\`, so the root lives in the app's binary.
What it writes follows the --out extension: .ts/.mts/.cts TypeScript, .js/.mjs ES module,
.cjs CommonJS, .json JSON, .pem the certificate; --format overrides it.

With --standby-url it embeds the standby's CURRENT signing key (the default one), read from
its JWK set, which the standby shows to callers with an ID token or a ServiceKeyHash, and
only while it is active; nothing changes on the standby. (The mock server's issuer gives an
ID token: POST <mock>/idp/token with {"sub":"dev"}.) With --new-key it instead calls
POST <url>/signing-keys with the management API key, which makes a NEW signing key and makes
it the default (older keys stay usable): do that once per app release, not in every build.
With --pem it reads a root certificate you already have. With --jwks-url it takes the root
(last x5c entry) of the newest key of a public JWK set, such as the mock main service's:
trust on first use, for development only; a shipped app embeds a root it got from its vendor
out of band.

If --out exists and already embeds the same root, the command leaves it as it is and exits 0;
if it holds anything else, it refuses (exit 1) unless --force.

Options:
  --standby-url <url>       Base URL of the standby service (https; http only for loopback
                            unless --allow-http)
  --id-token <jwt>          Read the current key with this ID token
                            (default: $${ID_TOKEN_ENV})
  --service-key-hash <hex>  ... or with this ServiceKeyHash
                            (default: $${SERVICE_KEY_HASH_ENV})
  --new-key                 Make a new signing key instead (POST /signing-keys; needs --api-key)
  --api-key <key>           Management API key, with --new-key
                            (default: $${API_KEY_ENV})
  --header-name <name>      Name of the API-key header (default: Service-ApiKey)
  --pem <file>              Read the root certificate from a PEM file instead
  --key-id <id>             Signing key id of that root (with --pem; recommended)
  --service <main|standby>  Which service the root is for (written beside the pem, so the
                            SDK sends a standby key id only to the standby). Default: standby
                            with --standby-url or --key-id, main with --jwks-url, none else
  --jwks-url <url>          Read the root from a JWK set's x5c instead (development only)
  --out <file>              File to write
  --format <format>         ${OUTPUT_FORMATS.join('|')}: what to write, whatever the
                            extension (e.g. CommonJS in a .js file: --format cjs)
  --export-name <name>      Name of the exported constant (default: rootCertificate)
  --force                   Overwrite --out when it holds something else
  --allow-http              Allow a plain-http URL on a non-loopback host
  -h, --help                Show this help

Exit codes: 0 done (written, or already up to date), 1 failed (server, network, files,
--out holds something else), 2 bad usage.
`;

const OPTIONS = {
  'standby-url': { type: 'string' },
  'id-token': { type: 'string' },
  'service-key-hash': { type: 'string' },
  'new-key': { type: 'boolean' },
  'api-key': { type: 'string' },
  'header-name': { type: 'string' },
  pem: { type: 'string' },
  'key-id': { type: 'string' },
  service: { type: 'string' },
  'jwks-url': { type: 'string' },
  out: { type: 'string' },
  format: { type: 'string' },
  'export-name': { type: 'string' },
  force: { type: 'boolean' },
  'allow-http': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'];

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
const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

/** Flags of one way of reading the standby that the other way does not take. */
const CURRENT_KEY_FLAGS = ['id-token', 'service-key-hash'] as const;
const NEW_KEY_FLAGS = ['api-key', 'header-name'] as const;

/** What to fetch the root from, once the command line is checked. */
type Source =
  | { kind: 'standby-current'; url: URL; credential: CallerCredential }
  | ({ kind: 'standby-new' } & ManagementAccess)
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
  /** `--service`, when given. */
  service: RootService | undefined;
}

/** What `--service` names. */
type RootService = 'main' | 'standby';

/** The service a root is for: `--service`, else what its source says (see the usage). */
function serviceOf(plan: Plan, keyId: string | undefined): RootService | undefined {
  if (plan.service !== undefined) return plan.service;
  if (plan.source.kind === 'jwks') return 'main';
  if (plan.source.kind === 'pem') return keyId === undefined ? undefined : 'standby';
  return 'standby';
}

function parse(argv: readonly string[], io: CliIo): Plan | 'help' {
  let values: Values;
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
  const service = values.service;
  if (service !== undefined && service !== 'main' && service !== 'standby') {
    throw usageError(`--service must be main or standby, got ${service}`);
  }
  // Narrowed by the check above.
  const rootService = service as RootService | undefined;
  const plan = {
    out: resolve(values.out),
    format,
    fromJsExtension: values.format === undefined && /\.js$/i.test(values.out),
    exportName,
    force: values.force === true,
    service: rootService,
  };

  const sources = [values['standby-url'], values.pem, values['jwks-url']].filter(
    (value) => value !== undefined,
  );
  if (sources.length !== 1) {
    throw usageError('give exactly one of --standby-url, --pem or --jwks-url');
  }
  if (values['standby-url'] === undefined) {
    for (const flag of [...CURRENT_KEY_FLAGS, ...NEW_KEY_FLAGS, 'new-key'] as const) {
      if (values[flag] !== undefined) throw usageError(`--${flag} goes with --standby-url`);
    }
  }
  if (values['jwks-url'] !== undefined) {
    if (values['key-id'] !== undefined) throw usageError('--key-id does not go with --jwks-url');
    const url = parseHttpUrl(values['jwks-url'], '--jwks-url', values['allow-http'] === true);
    return { ...plan, source: { kind: 'jwks', url } };
  }
  if (values.pem !== undefined) {
    if (values['allow-http'] !== undefined) {
      throw usageError('--allow-http goes with --standby-url or --jwks-url, not --pem');
    }
    return { ...plan, source: { kind: 'pem', file: resolve(values.pem), keyId: values['key-id'] } };
  }
  if (values['key-id'] !== undefined) {
    throw usageError('--key-id goes with --pem; the standby names its key itself');
  }
  const url = parseHttpUrl(values['standby-url']!, '--standby-url', values['allow-http'] === true);
  const source = values['new-key']
    ? newKeySource(values, url, io)
    : currentKeySource(values, url, io);
  return { ...plan, source };
}

/** `--standby-url --new-key`: the management API key makes a new signing key. */
function newKeySource(values: Values, url: URL, io: CliIo): Source {
  for (const flag of CURRENT_KEY_FLAGS) {
    if (values[flag] !== undefined) {
      throw usageError(`--${flag} reads the current key; --new-key makes one with --api-key alone`);
    }
  }
  const apiKey = values['api-key'] ?? io.env[API_KEY_ENV];
  if (apiKey === undefined || apiKey === '') {
    throw usageError(`--new-key needs the management API key: --api-key <key> or $${API_KEY_ENV}`);
  }
  const headerName = values['header-name'] ?? 'Service-ApiKey';
  if (!HEADER_NAME.test(headerName)) throw usageError(`--header-name is not a valid header name`);
  return { kind: 'standby-new', url, apiKey, headerName };
}

/** `--standby-url` alone: the current key, read from the JWK set with a caller credential. */
function currentKeySource(values: Values, url: URL, io: CliIo): Source {
  for (const flag of NEW_KEY_FLAGS) {
    if (values[flag] !== undefined) {
      throw usageError(
        `--${flag} goes with --new-key. Without --new-key the command embeds the standby's current key, read from its JWK set with --id-token <jwt> or --service-key-hash <hex>; add --new-key to make a new key with the API key instead`,
      );
    }
  }
  const flags = {
    idToken: values['id-token'],
    hash: values['service-key-hash'],
  };
  if (flags.idToken !== undefined && flags.hash !== undefined) {
    throw usageError('give one of --id-token and --service-key-hash');
  }
  const env = {
    idToken: io.env[ID_TOKEN_ENV] || undefined,
    hash: io.env[SERVICE_KEY_HASH_ENV] || undefined,
  };
  const given = flags.idToken !== undefined || flags.hash !== undefined ? flags : env;
  if (given.idToken !== undefined && given.hash !== undefined) {
    throw usageError(
      `both $${ID_TOKEN_ENV} and $${SERVICE_KEY_HASH_ENV} are set: pass one as a flag`,
    );
  }
  if (given.idToken !== undefined) {
    if (given.idToken === '') throw usageError('--id-token is empty');
    return {
      kind: 'standby-current',
      url,
      credential: { scheme: 'IdToken', value: given.idToken },
    };
  }
  if (given.hash !== undefined) {
    if (!SHA256_HEX.test(given.hash)) {
      throw usageError('--service-key-hash must be a SHA-256 in hex (64 characters)');
    }
    return {
      kind: 'standby-current',
      url,
      credential: { scheme: 'ServiceKeyHash', value: given.hash },
    };
  }
  throw usageError(
    `--standby-url embeds the standby's current signing key, read from its JWK set, which the standby shows only to a caller: add --id-token <jwt> (a user's ID token; $${ID_TOKEN_ENV}) or --service-key-hash <hex> ($${SERVICE_KEY_HASH_ENV}). Or add --new-key --api-key <key> to make a new signing key instead`,
  );
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

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** Checks the output folder, and refuses a `--new-key` run that would have to overwrite. */
async function checkOut(plan: Plan): Promise<void> {
  try {
    // Like any code generator, create the output folder (e.g. src/roots/) when missing.
    await mkdir(dirname(plan.out), { recursive: true });
    await access(dirname(plan.out), constants.W_OK);
  } catch (error) {
    throw new CliError(1, `cannot write to the folder of ${plan.out}`, { cause: error });
  }
  // A new key always changes the file: refuse before the standby makes one.
  if (plan.source.kind === 'standby-new' && !plan.force && (await exists(plan.out))) {
    throw new CliError(
      1,
      `${plan.out} exists, and --new-key would replace the root it embeds: pass --force to overwrite it, or drop --new-key to embed the standby's current key`,
    );
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

interface LoadedRoot {
  root: RootCertificateInfo;
  keyId: string | undefined;
  /** Where the root came from, for the module's header. */
  source: string;
  /** What to say about the key after its id on stdout. */
  keyNote?: string;
}

function standbyRoot(pem: string): RootCertificateInfo {
  try {
    return describeCertificate(pem);
  } catch (error) {
    throw new CliError(1, `the standby's root certificate: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

async function loadRoot(plan: Plan, io: CliIo): Promise<LoadedRoot> {
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
  if (source.kind === 'standby-current') {
    const current = await readCurrentSigningKey(source.url, source.credential, io);
    const older = current.keyCount - 1;
    return {
      root: standbyRoot(current.rootCertificate),
      keyId: current.keyId,
      source: `GET ${standbyEndpoint(source.url, '.well-known/jwks.json').href}`,
      keyNote: `the standby's current key${older > 0 ? `; ${older} older still usable` : ''}`,
    };
  }
  const created = await createSigningKey(source, io);
  // Embeds what the standby sent, with `\n` line ends and surrounding whitespace trimmed.
  return {
    root: standbyRoot(created.rootCertificate),
    keyId: created.keyId,
    source: `POST ${standbyEndpoint(source.url, 'signing-keys').href}`,
    keyNote: "new: now the standby's default",
  };
}

/** Why an existing `--out` is not overwritten, and how to overwrite it. */
function refusal(out: string, existing: ExistingOutput, keyId: string | undefined): CliError {
  if (existing.kind === 'other-root' && existing.keyId !== undefined && existing.keyId !== keyId) {
    const now = keyId === undefined ? 'a root without a key id' : `key ${keyId}`;
    return new CliError(
      1,
      `${out} exists and embeds key ${existing.keyId}, not ${now}: pass --force to overwrite it`,
    );
  }
  if (existing.kind === 'other-root') {
    const what =
      existing.keyId !== undefined && existing.keyId === keyId
        ? `the same key ${keyId}, written with other options (--export-name, --format)`
        : 'another root';
    return new CliError(1, `${out} exists and embeds ${what}: pass --force to overwrite it`);
  }
  return new CliError(
    1,
    `${out} exists and was not written by embed-root: pass --force to overwrite it, or choose another --out`,
  );
}

/**
 * The `embed-root` command: gets a root certificate (the standby's current signing key, a new
 * one with `--new-key`, a PEM file, or a JWK set) and writes a module embedding it, in the format
 * `--out`'s extension (or `--format`) names. A re-run that would write the same root leaves the
 * file untouched. Resolves the exit code; reports on `io`.
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
  const { root, keyId, source, keyNote } = await loadRoot(plan, io);
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
  const service = serviceOf(plan, keyId);
  const render = (generatedAt: Date, from: string) =>
    renderRootModule({
      root,
      ...(keyId === undefined ? {} : { keyId }),
      ...(service === undefined ? {} : { service }),
      source: from,
      exportName: plan.exportName,
      generatedAt,
      format: plan.format,
    });
  let existing: ExistingOutput = { kind: 'none' };
  if (!plan.force) {
    try {
      existing = await compareExistingOutput(plan.out, plan.format, render);
    } catch (error) {
      throw new CliError(1, `cannot read ${plan.out}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    if (existing.kind !== 'none' && existing.kind !== 'same') {
      throw refusal(plan.out, existing, keyId);
    }
  }
  if (existing.kind !== 'same') {
    try {
      await writeFile(plan.out, render(io.now(), source), { flag: plan.force ? 'w' : 'wx' });
    } catch (error) {
      throw new CliError(1, `cannot write ${plan.out}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  for (const warning of warnings) io.stderr(`standby-licensing embed-root: warning: ${warning}\n`);
  const what = plan.format === 'pem' ? 'the root certificate' : plan.exportName;
  const key = keyId === undefined ? '' : ` (key ${keyId}${keyNote ? `, ${keyNote}` : ''})`;
  const expires = `expires ${root.notAfter.toISOString().slice(0, 10)}`;
  io.stdout(
    existing.kind === 'same'
      ? `Unchanged ${plan.out} (${FORMAT_NAMES[plan.format]}): already embeds ${what}${key}, ${expires}\n`
      : `Wrote ${plan.out} (${FORMAT_NAMES[plan.format]}): ${what}${key}, ${expires}\n`,
  );
  return 0;
}
