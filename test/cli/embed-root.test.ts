import { createHash, X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { x509 } from '@sdk-test/helpers/x509.js';
import { type RunningServer, startServer } from '@standby-licensing/mock-server';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../sdk/src/cli/cli-io.js';
import { runCli } from '../../sdk/src/cli/run-cli.js';

const API_KEY = 'embed-root-test-key';
const NOW = new Date('2026-01-15T10:00:00.000Z');
let server: RunningServer;
let dir: string;
let caPem: string;
let leafPem: string;
let caNotAfter: Date;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** Bodies the fetch saw (the server's answers), parsed as JSON when possible. */
  answers: unknown[];
  calls: number;
}

async function run(
  argv: string[],
  env: Record<string, string> = {},
  options: { now?: Date; fetch?: typeof fetch } = {},
): Promise<Run> {
  const result: Run = { code: -1, stdout: '', stderr: '', answers: [], calls: 0 };
  const realFetch = options.fetch ?? fetch;
  const io: CliIo = {
    stdout: (text) => {
      result.stdout += text;
    },
    stderr: (text) => {
      result.stderr += text;
    },
    fetch: async (input, init) => {
      result.calls += 1;
      const response = await realFetch(input, init);
      const text = await response.clone().text();
      try {
        result.answers.push(JSON.parse(text));
      } catch {
        result.answers.push(text);
      }
      return response;
    },
    env,
    now: () => options.now ?? NOW,
  };
  result.code = await runCli(argv, io);
  return result;
}

/** Type-checks `consumer` (importing `module`) in strict mode; returns the diagnostics' text. */
function typeCheck(files: Record<string, string>): string[] {
  const program = ts.createProgram(Object.keys(files), {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    exactOptionalPropertyTypes: true,
    allowImportingTsExtensions: true,
    types: [],
    lib: ['lib.es2022.d.ts'],
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

async function makeCertificates(): Promise<void> {
  const algorithm = {
    name: 'RSASSA-PKCS1-v1_5',
    modulusLength: 2048,
    publicExponent: new Uint8Array([1, 0, 1]),
    hash: 'SHA-256',
  };
  const keys = (await crypto.subtle.generateKey(algorithm, true, [
    'sign',
    'verify',
  ])) as CryptoKeyPair;
  caNotAfter = new Date('2030-06-01T00:00:00.000Z');
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=Embed Root Test CA',
    notBefore: new Date('2025-06-01T00:00:00.000Z'),
    notAfter: caNotAfter,
    keys,
    signingAlgorithm: algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true),
    ],
  });
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: 'CN=Embed Root Test Signer',
    issuer: ca.subject,
    notBefore: new Date('2025-06-01T00:00:00.000Z'),
    notAfter: new Date('2027-06-01T00:00:00.000Z'),
    publicKey: keys.publicKey,
    signingKey: keys.privateKey,
    signingAlgorithm: algorithm,
    extensions: [new x509.BasicConstraintsExtension(false)],
  });
  caPem = ca.toString('pem');
  leafPem = leaf.toString('pem');
}

beforeAll(async () => {
  [server, dir] = await Promise.all([
    startServer({ port: 0, apiKey: API_KEY, state: 'active' }),
    mkdtemp(join(tmpdir(), 'embed-root-')),
    makeCertificates(),
  ]).then(([s, d]) => [s, d] as const);
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

/** An ID token from the mock's built-in issuer, which the standby trusts. */
async function idToken(sub = 'embed-root-test'): Promise<string> {
  const response = await fetch(`${server.info.idpUrl}/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ sub }),
  });
  return ((await response.json()) as { id_token: string }).id_token;
}

/** The standby's JWK set, as a caller sees it. */
async function standbyKeys(): Promise<Array<{ kid: string; x5c: string[] }>> {
  const response = await fetch(`${server.info.standbyUrl}/.well-known/jwks.json`, {
    headers: { Authorization: `IdToken ${await idToken()}` },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { keys: Array<{ kid: string; x5c: string[] }> }).keys;
}

/** A new signing key made straight through the management API (not through the command). */
async function makeKey(): Promise<{ keyId: string; rootCertificate: string }> {
  const response = await fetch(`${server.info.standbyUrl}/signing-keys`, {
    method: 'POST',
    headers: { 'Service-ApiKey': API_KEY },
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { keyId: string; rootCertificate: string };
}

async function management(path: 'enabled' | 'disabled'): Promise<void> {
  const response = await fetch(`${server.info.standbyUrl}/${path}`, {
    method: 'POST',
    headers: { 'Service-ApiKey': API_KEY },
  });
  expect(response.status).toBe(200);
}

type RootModule = { rootCertificate: { pem: string; keyId: string } };
/** The root a JSON output holds (read afresh each time, unlike an imported module). */
const readJsonRoot = async (file: string) =>
  (JSON.parse(await readFile(file, 'utf8')) as RootModule).rootCertificate;
const sameCertificate = (a: string, b: string) =>
  new x509.X509Certificate(a).equal(new x509.X509Certificate(b));

describe('embed-root --standby-url: the current key', () => {
  it("embeds the standby's current key and its root, and changes nothing on the standby", async () => {
    const made = await makeKey();
    const before = await standbyKeys();
    expect(before[0]!.kid).toBe(made.keyId);
    const out = join(dir, 'current-root.ts');
    const url = server.info.standbyUrl;
    const result = await run([
      'embed-root',
      '--standby-url',
      url,
      '--id-token',
      await idToken(),
      '--out',
      out,
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.calls).toBe(1);
    const module = (await import(pathToFileURL(out).href)) as RootModule;
    expect(module.rootCertificate.keyId).toBe(made.keyId);
    expect(sameCertificate(module.rootCertificate.pem, made.rootCertificate)).toBe(true);
    const text = await readFile(out, 'utf8');
    expect(text).toContain(`// Source: GET ${url}/.well-known/jwks.json`);
    expect(result.stdout).toContain(`(key ${made.keyId}, the standby's current key; `);
    // No new key: the JWK set is the same, the same key is the default.
    expect((await standbyKeys()).map((k) => k.kid)).toEqual(before.map((k) => k.kid));
  });

  it('leaves an up-to-date file alone on a re-run, and refuses (with --force named) after a rotation', async () => {
    const out = join(dir, 'rerun-root.json');
    const argv = ['embed-root', '--standby-url', server.info.standbyUrl, '--out', out];
    const env = { STANDBY_LICENSING_ID_TOKEN: await idToken() };
    const first = await run(argv, env);
    expect(first.code).toBe(0);
    const written = await readFile(out, 'utf8');

    // A later run, same key: nothing to do, and the file keeps its first generation time.
    const later = new Date(NOW.getTime() + 86_400_000);
    const again = await run(argv, env, { now: later });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^Unchanged .*rerun-root\.json \(JSON\): already embeds/);
    expect(await readFile(out, 'utf8')).toBe(written);

    // The vendor rotates: the file embeds an older key now, and a plain re-run says how to
    // replace it instead of overwriting it silently.
    const old = (await readJsonRoot(out)).keyId;
    const rotated = await makeKey();
    const refused = await run(argv, env, { now: later });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `exists and embeds key ${old}, not key ${rotated.keyId}: pass --force to overwrite it`,
    );
    expect(await readFile(out, 'utf8')).toBe(written);
    const forced = await run([...argv, '--force'], env, { now: later });
    expect(forced.code).toBe(0);
    expect(forced.stdout).toMatch(/^Wrote /);
    expect((await readJsonRoot(out)).keyId).toBe(rotated.keyId);
  });

  it("reads the key with a ServiceKeyHash of the main service's public key", async () => {
    const { keys } = (await (
      await fetch(`${server.info.mainUrl}/.well-known/jwks.json`)
    ).json()) as {
      keys: Array<{ x5c: string[] }>;
    };
    const mainKey = new X509Certificate(Buffer.from(keys[0]!.x5c[0]!, 'base64')).publicKey;
    const pem = mainKey.export({ type: 'spki', format: 'pem' }) as string;
    const hash = createHash('sha256').update(pem).digest('hex');
    const out = join(dir, 'hash-root.json');
    const result = await run(
      ['embed-root', '--standby-url', server.info.standbyUrl, '--out', out],
      { STANDBY_LICENSING_SERVICE_KEY_HASH: hash.toUpperCase() },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const data = JSON.parse(await readFile(out, 'utf8')) as RootModule;
    expect(data.rootCertificate.keyId).toBe((await standbyKeys())[0]!.kid);
  });

  it('says what to do when the standby is dormant, and writes nothing', async () => {
    await management('disabled');
    try {
      const out = join(dir, 'dormant-root.ts');
      const result = await run([
        'embed-root',
        '--standby-url',
        server.info.standbyUrl,
        '--id-token',
        await idToken(),
        '--out',
        out,
      ]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('the standby is dormant (HTTP 403 standby_dormant)');
      expect(result.stderr).toContain(`POST ${server.info.standbyUrl}/enabled`);
      expect(result.stderr).toContain('--new-key');
      await expect(readFile(out)).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      await management('enabled');
    }
  });

  it('exits 1 naming the refused credential', async () => {
    const result = await run([
      'embed-root',
      '--standby-url',
      server.info.standbyUrl,
      '--id-token',
      'not.a.token',
      '--out',
      join(dir, 'refused-root.ts'),
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/refused the ID token: HTTP 401 invalid_token/);
  });

  describe('refuses a JWK set that does not show the key chained to its root', () => {
    /** A fetch answering the real JWK set with its first key passed through `edit`. */
    const editedJwks =
      (edit: (keys: Array<Record<string, unknown>>) => void): typeof fetch =>
      async (input, init) => {
        const response = await fetch(input, init);
        const body = (await response.json()) as { keys: Array<Record<string, unknown>> };
        edit(body.keys);
        return new Response(JSON.stringify(body), { status: response.status });
      };
    const embedWith = async (edit: (keys: Array<Record<string, unknown>>) => void) => {
      const out = join(dir, `edited-${Math.random().toString(36).slice(2)}.ts`);
      const argv = ['embed-root', '--standby-url', server.info.standbyUrl, '--out', out];
      const result = await run(
        argv,
        { STANDBY_LICENSING_ID_TOKEN: await idToken() },
        { fetch: editedJwks(edit) },
      );
      expect(result.code).toBe(1);
      await expect(readFile(out)).rejects.toMatchObject({ code: 'ENOENT' });
      return result.stderr;
    };

    it('a JWK without the root in x5c', async () => {
      const stderr = await embedWith((keys) => {
        keys[0]!.x5c = (keys[0]!.x5c as string[]).slice(0, 1);
      });
      expect(stderr).toMatch(/carries no root certificate \(x5c has 1 entry\)/);
      expect(stderr).toMatch(/--pem <file> --key-id \S+\), or make a new key with --new-key/);
    });

    it("another key's root at the end of the chain", async () => {
      await makeKey(); // at least two keys
      const stderr = await embedWith((keys) => {
        keys[0]!.x5c = [(keys[0]!.x5c as string[])[0]!, (keys[1]!.x5c as string[]).at(-1)!];
      });
      expect(stderr).toMatch(/x5c\[0\] of the standby's key \S+ .* is not signed by x5c\[1\]/);
    });

    it("a JWK whose n is not its certificate's key", async () => {
      const stderr = await embedWith((keys) => {
        keys[0]!.n = keys[1]!.n;
      });
      expect(stderr).toMatch(/is not the public key of its x5c\[0\] certificate/);
    });

    it('no keys at all', async () => {
      const stderr = await embedWith((keys) => {
        keys.length = 0;
      });
      expect(stderr).toMatch(/holds no keys/);
    });
  });
});

describe('embed-root --standby-url --new-key', () => {
  it("writes a module whose pem is the new key's root certificate", async () => {
    const out = join(dir, 'standby-root.ts');
    const result = await run([
      'embed-root',
      '--standby-url',
      server.info.standbyUrl,
      '--new-key',
      '--api-key',
      API_KEY,
      '--out',
      out,
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const answer = result.answers[0] as {
      keyId: string;
      rootCertificate: string;
      notAfter: string;
    };
    expect(answer.keyId).toEqual(expect.any(String));
    // The new key is the standby's default now.
    expect((await standbyKeys())[0]!.kid).toBe(answer.keyId);

    const module = (await import(pathToFileURL(out).href)) as {
      rootCertificate: { pem: string; keyId: string };
      rootCertificateNotAfter: string;
    };
    expect(module.rootCertificate.pem).toBe(answer.rootCertificate);
    expect(module.rootCertificate.keyId).toBe(answer.keyId);
    expect(module.rootCertificateNotAfter).toBe(new Date(answer.notAfter).toISOString());
    const text = await readFile(out, 'utf8');
    expect(text).toContain(`EXPIRES ${answer.notAfter.slice(0, 10)}`);
    expect(result.stdout).toContain(`key ${answer.keyId}, new: now the standby's default`);

    // Shape: usable where the SDK's trust option wants `{ pem: string; keyId?: string }[]`,
    // and `as const` keeps it read-only.
    const consumer = join(dir, 'consumer.ts');
    await writeFile(
      consumer,
      `import { rootCertificate, rootCertificateNotAfter } from './standby-root.ts';
interface TrustedRoot { pem: string; keyId?: string }
const trust: { rootCertificates: TrustedRoot[] } = { rootCertificates: [rootCertificate] };
const expires: string = rootCertificateNotAfter;
// @ts-expect-error the embedded root is read-only
rootCertificate.pem = '';
export { trust, expires };
`,
    );
    expect(typeCheck({ [consumer]: '', [out]: '' })).toEqual([]);
  });

  it('takes the key from the environment and a renamed header', async () => {
    const out = join(dir, 'env-root.ts');
    const result = await run(
      [
        'embed-root',
        '--standby-url',
        `${server.info.standbyUrl}/`,
        '--new-key',
        '--header-name',
        'X-Vendor-ApiKey',
        '--out',
        out,
      ],
      { STANDBY_LICENSING_API_KEY: API_KEY },
    );
    // The mock server only knows Service-ApiKey, so the renamed header is refused: the key
    // was sent under the given name, not the default one.
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/HTTP 401 invalid_api_key/);
    const ok = await run(
      ['embed-root', '--standby-url', server.info.standbyUrl, '--new-key', '--out', out],
      { STANDBY_LICENSING_API_KEY: API_KEY },
    );
    expect(ok.code).toBe(0);
  });

  it('exits 1 with the ApiError message on a bad API key', async () => {
    const out = join(dir, 'bad-key.ts');
    const result = await run([
      'embed-root',
      '--standby-url',
      server.info.standbyUrl,
      '--new-key',
      '--api-key',
      'wrong',
      '--out',
      out,
    ]);
    expect(result.code).toBe(1);
    const answer = result.answers[0] as { error: string; error_description?: string };
    expect(answer.error).toBe('invalid_api_key');
    expect(result.stderr).toContain(
      `HTTP 401 invalid_api_key${answer.error_description ? `: ${answer.error_description}` : ''}`,
    );
    await expect(readFile(out)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('exits 1 when the standby cannot be reached', async () => {
    const result = await run([
      'embed-root',
      '--standby-url',
      'http://127.0.0.1:1/standby',
      '--new-key',
      '--api-key',
      API_KEY,
      '--out',
      join(dir, 'unreachable.ts'),
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:1\/standby\/signing-keys/);
  });

  it('refuses to overwrite without --force, before asking for a key, and says how', async () => {
    const out = join(dir, 'existing.ts');
    await writeFile(out, '// mine\n');
    const argv = [
      'embed-root',
      '--standby-url',
      server.info.standbyUrl,
      '--new-key',
      '--api-key',
      API_KEY,
    ];
    const keysBefore = (await standbyKeys()).length;
    const refused = await run([...argv, '--out', out]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/exists, and --new-key would replace .*: pass --force/);
    expect(refused.calls).toBe(0);
    expect(await readFile(out, 'utf8')).toBe('// mine\n');
    expect((await standbyKeys()).length).toBe(keysBefore);

    const forced = await run([...argv, '--out', out, '--force']);
    expect(forced.code).toBe(0);
    expect(await readFile(out, 'utf8')).toMatch(/export const rootCertificate = \{/);
  });
});

describe('embed-root --pem', () => {
  it('embeds the root of a PEM file with its key id and expiry', async () => {
    const pemFile = join(dir, 'root.pem');
    await writeFile(pemFile, caPem.replace(/\n/g, '\r\n'));
    const out = join(dir, 'pem-root.ts');
    const result = await run([
      'embed-root',
      '--pem',
      pemFile,
      '--key-id',
      "k'1",
      '--out',
      out,
      '--export-name',
      'appRoot',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const module = (await import(pathToFileURL(out).href)) as {
      appRoot: { pem: string; keyId: string };
      appRootNotAfter: string;
    };
    expect(module.appRoot).toEqual({ pem: caPem.trim(), keyId: "k'1", service: 'standby' });
    expect(module.appRootNotAfter).toBe(caNotAfter.toISOString());
    const text = await readFile(out, 'utf8');
    expect(text).toContain('EXPIRES 2030-06-01');
    expect(text).toContain('Subject: CN=Embed Root Test CA');
    expect(text).toContain(`Generated by \`standby-licensing embed-root\` on ${NOW.toISOString()}`);
  });

  it('picks the root out of a chain file and warns without a key id', async () => {
    const pemFile = join(dir, 'chain.pem');
    await writeFile(pemFile, `${leafPem}\n${caPem}\n`);
    const out = join(dir, 'chain-root.ts');
    const result = await run(['embed-root', '--pem', pemFile, '--out', out]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/warning: no --key-id/);
    const module = (await import(pathToFileURL(out).href)) as { rootCertificate: object };
    expect(module.rootCertificate).toEqual({ pem: caPem.trim() });
  });

  it('writes the service --service names, whatever the key id says', async () => {
    const pemFile = join(dir, 'main.pem');
    await writeFile(pemFile, `${caPem}\n`);
    const out = join(dir, 'main-root.json');
    const result = await run(['embed-root', '--pem', pemFile, '--service', 'main', '--out', out]);
    expect(result.code).toBe(0);
    const data = JSON.parse(await readFile(out, 'utf8')) as { rootCertificate: object };
    expect(data.rootCertificate).toEqual({ pem: caPem.trim(), service: 'main' });
  });

  it('exits 1 on a file that is not a certificate, or missing', async () => {
    const pemFile = join(dir, 'not-a-cert.pem');
    await writeFile(pemFile, 'hello\n');
    const bad = await run(['embed-root', '--pem', pemFile, '--out', join(dir, 'x.ts')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/no "BEGIN CERTIFICATE" block/);
    const missing = await run([
      'embed-root',
      '--pem',
      join(dir, 'nope.pem'),
      '--out',
      join(dir, 'x.ts'),
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/cannot read/);
  });
});

describe('embed-root --out extensions and --format', () => {
  async function embed(out: string, ...extra: string[]): Promise<Run> {
    const pemFile = join(dir, 'format-root.pem');
    await writeFile(pemFile, caPem);
    return run(['embed-root', '--pem', pemFile, '--key-id', 'k1', '--out', out, ...extra]);
  }

  it('writes CommonJS into a .cjs file', async () => {
    const out = join(dir, 'root.cjs');
    const result = await embed(out);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('(CommonJS)');
    const loaded = createRequire(import.meta.url)(out) as { rootCertificate: object };
    expect(loaded.rootCertificate).toEqual({ pem: caPem.trim(), keyId: 'k1', service: 'standby' });
  });

  it('writes an ES module into a .js file and warns when Node would read it as CommonJS', async () => {
    const project = await mkdtemp(join(dir, 'cjs-project-'));
    await writeFile(join(project, 'package.json'), '{"name":"app"}');
    const out = join(project, 'root.js');
    const result = await embed(out);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/warning: .*root\.js is an ES module.*--format cjs/);
    expect(await readFile(out, 'utf8')).toMatch(/^export const rootCertificate = Object\.freeze/m);

    const esmProject = await mkdtemp(join(dir, 'esm-project-'));
    await writeFile(join(esmProject, 'package.json'), '{"type":"module"}');
    const quiet = await embed(join(esmProject, 'root.js'));
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
  });

  it('lets --format win over the extension', async () => {
    const out = join(dir, 'legacy-root.js');
    const result = await embed(out, '--format', 'cjs');
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(await readFile(out, 'utf8')).toMatch(/^exports\.rootCertificate = Object\.freeze/m);
  });

  it('writes JSON and PEM', async () => {
    const json = join(dir, 'root.json');
    expect((await embed(json, '--export-name', 'appRoot')).code).toBe(0);
    const data = JSON.parse(await readFile(json, 'utf8')) as Record<string, unknown>;
    expect(data.appRoot).toEqual({ pem: caPem.trim(), keyId: 'k1', service: 'standby' });
    expect(data.appRootNotAfter).toBe(caNotAfter.toISOString());

    const pem = join(dir, 'embedded-root.pem');
    const written = await embed(pem);
    expect(written.code).toBe(0);
    const text = await readFile(pem, 'utf8');
    expect(text.slice(text.indexOf('-----BEGIN'))).toBe(`${caPem.trim()}\n`);
    expect(text).toContain('# Standby signing key: k1');
  });

  it.each([['same.ts'], ['same.mjs'], ['same.cjs'], ['same.json'], ['same.pem']])(
    'leaves %s alone when a re-run would write the same root',
    async (name) => {
      const out = join(dir, name);
      expect((await embed(out)).code).toBe(0);
      const written = await readFile(out, 'utf8');
      const pemFile = join(dir, 'format-root.pem');
      const later = await run(
        ['embed-root', '--pem', pemFile, '--key-id', 'k1', '--out', out],
        {},
        { now: new Date('2026-02-01T00:00:00.000Z') },
      );
      expect(later.code).toBe(0);
      expect(later.stdout).toMatch(/^Unchanged /);
      expect(await readFile(out, 'utf8')).toBe(written);
      // Another key id is other content: refused, naming both keys and --force.
      const other = await run(['embed-root', '--pem', pemFile, '--key-id', 'k2', '--out', out]);
      expect(other.code).toBe(1);
      expect(other.stderr).toContain('embeds key k1, not key k2: pass --force to overwrite it');
      expect(await readFile(out, 'utf8')).toBe(written);
    },
  );

  it('refuses to overwrite a file it did not write, naming --force', async () => {
    const out = join(dir, 'hand-written.ts');
    await writeFile(out, 'export const rootCertificate = { pem: "mine" };\n');
    const result = await embed(out);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/was not written by embed-root: pass --force to overwrite it/);
    const renamed = await embed(join(dir, 'same-export.ts'));
    expect(renamed.code).toBe(0);
    const again = await embed(join(dir, 'same-export.ts'), '--export-name', 'appRoot');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/embeds the same key k1, written with other options/);
  });

  it('refuses a name whose extension says nothing, before writing or asking the standby', async () => {
    const out = join(dir, 'root.txt');
    const result = await run([
      'embed-root',
      '--standby-url',
      server.info.standbyUrl,
      '--api-key',
      API_KEY,
      '--out',
      out,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/cannot tell what to write from the name .*root\.txt/);
    expect(result.calls).toBe(0);
    await expect(readFile(out)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('embed-root --jwks-url', () => {
  it("embeds the root of the mock main's JWK set, warning that it is trust on first use", async () => {
    const out = join(dir, 'main-root.ts');
    const jwksUrl = `${server.info.mainUrl}/.well-known/jwks.json`;
    const result = await run(['embed-root', '--jwks-url', jwksUrl, '--out', out]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/trust on first use/);
    const { keys } = (await (await fetch(jwksUrl)).json()) as { keys: Array<{ x5c: string[] }> };
    const expected = new x509.X509Certificate(keys[0]!.x5c.at(-1)!);
    const module = (await import(pathToFileURL(out).href)) as {
      rootCertificate: { pem: string; keyId?: string };
    };
    expect(new x509.X509Certificate(module.rootCertificate.pem).equal(expected)).toBe(true);
    expect(module.rootCertificate.keyId).toBeUndefined();
    // Main's root says so: the SDK never sends a key id of it to the standby.
    expect(module.rootCertificate).toMatchObject({ service: 'main' });
  });

  it('exits 1 when the JWK set has no x5c', async () => {
    const result = await run([
      'embed-root',
      '--jwks-url',
      `${server.info.idpUrl}/.well-known/jwks.json`,
      '--out',
      join(dir, 'idp-root.ts'),
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no x5c/);
  });
});

describe('usage', () => {
  it.each([
    [[]],
    [['frobnicate']],
    [['embed-root']],
    [['embed-root', '--out', 'x.ts']],
    [['embed-root', '--pem', 'a.pem', '--standby-url', 'https://s.example', '--out', 'x.ts']],
    [['embed-root', '--pem', 'a.pem', '--api-key', 'k', '--out', 'x.ts']],
    [
      [
        'embed-root',
        '--standby-url',
        'https://s.example',
        '--key-id',
        'k',
        '--api-key',
        'k',
        '--out',
        'x.ts',
      ],
    ],
    [['embed-root', '--standby-url', 'https://s.example', '--out', 'x.ts']],
    [['embed-root', '--standby-url', 'https://s.example', '--api-key', 'k', '--out', 'x.ts']],
    [['embed-root', '--standby-url', 'https://s.example', '--new-key', '--out', 'x.ts']],
    [
      [
        'embed-root',
        '--standby-url',
        'https://s.example',
        '--new-key',
        '--api-key',
        'k',
        '--id-token',
        't',
        '--out',
        'x.ts',
      ],
    ],
    [
      [
        'embed-root',
        '--standby-url',
        'https://s.example',
        '--id-token',
        't',
        '--service-key-hash',
        'a'.repeat(64),
        '--out',
        'x.ts',
      ],
    ],
    [
      [
        'embed-root',
        '--standby-url',
        'https://s.example',
        '--service-key-hash',
        'abc',
        '--out',
        'x.ts',
      ],
    ],
    [['embed-root', '--pem', 'a.pem', '--id-token', 't', '--out', 'x.ts']],
    [['embed-root', '--pem', 'a.pem', '--new-key', '--out', 'x.ts']],
    [['embed-root', '--standby-url', 'http://s.example', '--id-token', 't', '--out', 'x.ts']],
    [['embed-root', '--standby-url', 'not a url', '--id-token', 't', '--out', 'x.ts']],
    [['embed-root', '--pem', 'a.pem', '--out', 'x.ts', '--export-name', 'not-valid']],
    [['embed-root', '--pem', 'a.pem', '--out', 'x.ts', '--bogus']],
    [['embed-root', '--jwks-url', 'https://m.example/jwks', '--pem', 'a.pem', '--out', 'x.ts']],
    [['embed-root', '--jwks-url', 'https://m.example/jwks', '--key-id', 'k', '--out', 'x.ts']],
    [['embed-root', '--pem', 'a.pem', '--out', 'x.txt']],
    [['embed-root', '--pem', 'a.pem', '--out', 'x']],
    [['embed-root', '--pem', 'a.pem', '--out', 'x.ts', '--format', 'yaml']],
    [['embed-root', '--pem', 'a.pem', '--out', 'x.pem', '--export-name', 'appRoot']],
    [['embed-root', '--pem', 'a.pem', '--out', 'x.ts', '--service', 'backup']],
  ])('%j exits 2', async (argv) => {
    const result = await run(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toBe('');
    expect(result.calls).toBe(0);
  });

  it('tells a user of the old command line (API key, no --new-key) both ways forward', async () => {
    const result = await run([
      'embed-root',
      '--standby-url',
      'https://s.example',
      '--api-key',
      'k',
      '--out',
      'x.ts',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--api-key goes with --new-key/);
    expect(result.stderr).toMatch(/--id-token <jwt> or --service-key-hash <hex>/);
    const bare = await run(['embed-root', '--standby-url', 'https://s.example', '--out', 'x.ts']);
    expect(bare.stderr).toMatch(/add --id-token <jwt>.*Or add --new-key --api-key <key>/);
  });

  it('--help prints usage and exits 0', async () => {
    const top = await run(['--help']);
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/embed-root/);
    const command = await run(['embed-root', '--help']);
    expect(command.code).toBe(0);
    expect(command.stdout).toMatch(/--standby-url <url>/);
    expect(command.stdout).toMatch(/--header-name <name>/);
  });
});
