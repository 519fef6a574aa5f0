import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { x509 } from '../../test/helpers/x509.js';
import { parsePemBlocks } from '../internal/pem.js';
import { type RootModuleInput, renderRootModule } from './render-root-module.js';
import { describeCertificate } from './root-certificate.js';

const run = promisify(execFile);
// A key id and source that try to break out of every format's quoting (and a `${x}`).
const HOSTILE_KEY_ID = ["k'1\\\n*/ process.exit(3) /* $", '{x} `-----BEGIN CERTIFICATE-----'].join(
  '',
);
const HOSTILE_SOURCE = 'POST https://s.example/*/\n-----END CERTIFICATE-----';

let dir: string;
let input: RootModuleInput;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'render-root-'));
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
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=Render Test Root',
    notBefore: new Date('2025-06-01T00:00:00.000Z'),
    notAfter: new Date('2030-06-01T00:00:00.000Z'),
    keys,
    signingAlgorithm: algorithm,
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true)],
  });
  input = {
    root: describeCertificate(ca.toString('pem')),
    keyId: HOSTILE_KEY_ID,
    source: HOSTILE_SOURCE,
    generatedAt: new Date('2026-01-15T10:00:00.000Z'),
  };
});
afterAll(() => rm(dir, { recursive: true, force: true }));

interface Loaded {
  rootCertificate: { pem: string; keyId?: string };
  rootCertificateNotAfter: string;
  frozen: boolean;
}

/** Loads `file` in a real Node process, by `require` or `import`, and returns its exports. */
async function loadWithNode(file: string, how: 'require' | 'import'): Promise<Loaded> {
  const print = 'console.log(JSON.stringify({ ...m, frozen: Object.isFrozen(m.rootCertificate) }))';
  const script =
    how === 'require'
      ? `const m = require(process.argv[1]); ${print}`
      : `import(require('node:url').pathToFileURL(process.argv[1]).href).then((m) => { ${print} })`;
  const { stdout } = await run(process.execPath, ['-e', script, file]);
  return JSON.parse(stdout) as Loaded;
}

async function write(name: string, format: RootModuleInput['format']): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, renderRootModule({ ...input, ...(format ? { format } : {}) }));
  return file;
}

describe('renderRootModule', () => {
  it('writes TypeScript by default', () => {
    const text = renderRootModule(input);
    expect(text).toMatch(/^export const rootCertificate = \{$/m);
    expect(text).toMatch(/^\} as const;$/m);
  });

  it('writes an ES module Node imports, frozen, with the exact pem and key id', async () => {
    const loaded = await loadWithNode(await write('root.mjs', 'esm'), 'import');
    expect(loaded.rootCertificate).toEqual({ pem: input.root.pem, keyId: HOSTILE_KEY_ID });
    expect(loaded.rootCertificateNotAfter).toBe('2030-06-01T00:00:00.000Z');
    expect(loaded.frozen).toBe(true);
  });

  it('writes a CommonJS module that both require() and import find the names in', async () => {
    const file = await write('root.cjs', 'cjs');
    for (const how of ['require', 'import'] as const) {
      const loaded = await loadWithNode(file, how);
      expect(loaded.rootCertificate).toEqual({ pem: input.root.pem, keyId: HOSTILE_KEY_ID });
      expect(loaded.rootCertificateNotAfter).toBe('2030-06-01T00:00:00.000Z');
      expect(loaded.frozen).toBe(true);
    }
  });

  it('writes JSON keyed like the modules, under the export name', async () => {
    const text = renderRootModule({ ...input, format: 'json', exportName: 'appRoot' });
    const data = JSON.parse(text) as Record<string, unknown>;
    // Exactly the keys the SDK's `trust.rootCertificates` entries accept.
    expect(data.appRoot).toEqual({ pem: input.root.pem, keyId: HOSTILE_KEY_ID });
    expect(data.appRootNotAfter).toBe('2030-06-01T00:00:00.000Z');
    expect(data.subject).toBe('CN=Render Test Root');
    expect(data.$comment).toMatch(/EXPIRES 2030-06-01/);
  });

  it('leaves keyId out when there is none', async () => {
    const { keyId: _, ...withoutKey } = input;
    const data = JSON.parse(renderRootModule({ ...withoutKey, format: 'json' }));
    expect(data.rootCertificate).toEqual({ pem: input.root.pem });
    const file = join(dir, 'nokey.cjs');
    await writeFile(file, renderRootModule({ ...withoutKey, format: 'cjs' }));
    const loaded = await loadWithNode(file, 'require');
    expect(loaded.rootCertificate).toEqual({ pem: input.root.pem });
  });

  it('writes the service the root is for beside pem and keyId, in every format', async () => {
    const withService = { ...input, service: 'standby' as const };
    const expected = { pem: input.root.pem, keyId: HOSTILE_KEY_ID, service: 'standby' };
    for (const [name, format] of [
      ['service.mjs', 'esm'],
      ['service.cjs', 'cjs'],
    ] as const) {
      const file = join(dir, name);
      await writeFile(file, renderRootModule({ ...withService, format }));
      expect((await loadWithNode(file, 'import')).rootCertificate).toEqual(expected);
    }
    expect(
      JSON.parse(renderRootModule({ ...withService, format: 'json' })).rootCertificate,
    ).toEqual(expected);
    expect(renderRootModule(withService)).toContain("  service: 'standby',\n");
    expect(renderRootModule({ ...withService, format: 'esm' })).toContain(
      "readonly service: 'standby'",
    );
    expect(renderRootModule({ ...withService, format: 'pem' })).toMatch(
      /^# Service: standby \(give it as service beside this pem\)\.$/m,
    );
    const { keyId: _, ...mainRoot } = { ...input, service: 'main' as const };
    expect(renderRootModule(mainRoot)).toContain(
      " * The main service's root: main's leases chain to it.",
    );
  });

  it('writes PEM with one certificate block, which OpenSSL and the SDK read', async () => {
    const text = renderRootModule({ ...input, format: 'pem' });
    const blocks = parsePemBlocks(text);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]!.label).toBe('CERTIFICATE');
    const expected = new X509Certificate(input.root.pem);
    expect(new X509Certificate(text).fingerprint256).toBe(expected.fingerprint256);
    // The explanation stays in `#` lines before the block.
    const [before] = text.split('-----BEGIN CERTIFICATE-----');
    expect(
      before!
        .split('\n')
        .filter(Boolean)
        .every((line) => line.startsWith('# ')),
    ).toBe(true);
    expect(before).toContain('EXPIRES 2030-06-01');
  });
});
