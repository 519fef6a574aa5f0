import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type RunningServer, startServer } from '@standby-licensing/mock-server';
import { x509 } from '@test/helpers/x509.js';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from './cli-io.js';
import { runCli } from './run-cli.js';

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

async function run(argv: string[], env: Record<string, string> = {}): Promise<Run> {
  const result: Run = { code: -1, stdout: '', stderr: '', answers: [], calls: 0 };
  const io: CliIo = {
    stdout: (text) => {
      result.stdout += text;
    },
    stderr: (text) => {
      result.stderr += text;
    },
    fetch: async (input, init) => {
      result.calls += 1;
      const response = await fetch(input, init);
      const text = await response.clone().text();
      try {
        result.answers.push(JSON.parse(text));
      } catch {
        result.answers.push(text);
      }
      return response;
    },
    env,
    now: () => NOW,
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
    startServer({ port: 0, apiKey: API_KEY }),
    mkdtemp(join(tmpdir(), 'embed-root-')),
    makeCertificates(),
  ]).then(([s, d]) => [s, d] as const);
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('embed-root against the standby', () => {
  it("writes a module whose pem is the new key's root certificate", async () => {
    const out = join(dir, 'standby-root.ts');
    const result = await run([
      'embed-root',
      '--standby-url',
      server.info.standbyUrl,
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

    const module = (await import(pathToFileURL(out).href)) as {
      rootCertificate: { pem: string; keyId: string };
      rootCertificateNotAfter: string;
    };
    expect(module.rootCertificate.pem).toBe(answer.rootCertificate);
    expect(module.rootCertificate.keyId).toBe(answer.keyId);
    expect(module.rootCertificateNotAfter).toBe(new Date(answer.notAfter).toISOString());
    const text = await readFile(out, 'utf8');
    expect(text).toContain(`EXPIRES ${answer.notAfter.slice(0, 10)}`);
    expect(result.stdout).toContain(`key ${answer.keyId}`);

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
    const ok = await run(['embed-root', '--standby-url', server.info.standbyUrl, '--out', out], {
      STANDBY_LICENSING_API_KEY: API_KEY,
    });
    expect(ok.code).toBe(0);
  });

  it('exits 1 with the ApiError message on a bad API key', async () => {
    const out = join(dir, 'bad-key.ts');
    const result = await run([
      'embed-root',
      '--standby-url',
      server.info.standbyUrl,
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
      '--api-key',
      API_KEY,
      '--out',
      join(dir, 'unreachable.ts'),
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:1\/standby\/signing-keys/);
  });

  it('refuses to overwrite without --force, before asking for a key', async () => {
    const out = join(dir, 'existing.ts');
    await writeFile(out, '// mine\n');
    const argv = ['embed-root', '--standby-url', server.info.standbyUrl, '--api-key', API_KEY];
    const refused = await run([...argv, '--out', out]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/exists; pass --force/);
    expect(refused.calls).toBe(0);
    expect(await readFile(out, 'utf8')).toBe('// mine\n');

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
    expect(module.appRoot).toEqual({ pem: caPem.trim(), keyId: "k'1" });
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
    expect(loaded.rootCertificate).toEqual({ pem: caPem.trim(), keyId: 'k1' });
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
    expect(data.appRoot).toEqual({ pem: caPem.trim(), keyId: 'k1' });
    expect(data.appRootNotAfter).toBe(caNotAfter.toISOString());

    const pem = join(dir, 'embedded-root.pem');
    const written = await embed(pem);
    expect(written.code).toBe(0);
    const text = await readFile(pem, 'utf8');
    expect(text.slice(text.indexOf('-----BEGIN'))).toBe(`${caPem.trim()}\n`);
    expect(text).toContain('# Standby signing key: k1');
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
    [['embed-root', '--standby-url', 'http://s.example', '--api-key', 'k', '--out', 'x.ts']],
    [['embed-root', '--standby-url', 'not a url', '--api-key', 'k', '--out', 'x.ts']],
    [['embed-root', '--pem', 'a.pem', '--out', 'x.ts', '--export-name', 'not-valid']],
    [['embed-root', '--pem', 'a.pem', '--out', 'x.ts', '--bogus']],
    [['embed-root', '--jwks-url', 'https://m.example/jwks', '--pem', 'a.pem', '--out', 'x.ts']],
    [['embed-root', '--jwks-url', 'https://m.example/jwks', '--key-id', 'k', '--out', 'x.ts']],
    [['embed-root', '--pem', 'a.pem', '--out', 'x.txt']],
    [['embed-root', '--pem', 'a.pem', '--out', 'x']],
    [['embed-root', '--pem', 'a.pem', '--out', 'x.ts', '--format', 'yaml']],
    [['embed-root', '--pem', 'a.pem', '--out', 'x.pem', '--export-name', 'appRoot']],
  ])('%j exits 2', async (argv) => {
    const result = await run(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toBe('');
    expect(result.calls).toBe(0);
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
