import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { type PrismProxy, startPrismProxy } from '@test/helpers/openapi/prism-proxy.js';
import {
  countsAgainstDocument,
  driveTraffic,
  startTrafficServer,
  TOOL_LIMITS,
  type TrafficResult,
  type TrafficServer,
} from '@test/helpers/openapi/traffic.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);

type Json = Record<string, unknown>;
type Operation = Json & { operationId?: string; security?: unknown[]; responses: Json };

async function documentOf(options: Parameters<typeof buildApp>[0]): Promise<Json> {
  const app = await buildApp(options);
  try {
    const res = await app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    return res.json() as Json;
  } finally {
    await app.close();
  }
}

function operations(doc: Json): Array<[string, string, Operation]> {
  return Object.entries(doc.paths as Record<string, Record<string, Operation>>).flatMap(
    ([path, item]) => Object.entries(item).map(([method, op]) => [path, method, op] as const),
  ) as Array<[string, string, Operation]>;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'openapi-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** `redocly lint` (recommended rules) of `doc`: its totals and problems. */
async function lint(doc: Json, name: string) {
  const file = join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify(doc));
  const cli = join(dirname(require.resolve('@redocly/cli/package.json')), 'bin/cli.js');
  const { stdout } = await run(process.execPath, [cli, 'lint', file, '--format=json'], {
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  return JSON.parse(stdout) as {
    totals: { errors: number; warnings: number };
    problems: Array<{ ruleId: string; message: string }>;
  };
}

describe.each([
  ['with --admin', { admin: true }],
  ['without --admin', {}],
])('/openapi.json %s', (name, options) => {
  let doc: Json;
  beforeAll(async () => {
    doc = await documentOf(options);
  });

  it('passes redocly lint (recommended rules) with no error and no warning', async () => {
    const result = await lint(doc, name.replace(/\W+/g, '-'));
    expect(result.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(result.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('gives every operation a unique operationId and a security requirement', () => {
    const ops = operations(doc);
    expect(ops.length).toBeGreaterThan(20);
    const ids = ops.map(([, , op]) => op.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [path, method, op] of ops) {
      expect(Array.isArray(op.security), `${method} ${path}`).toBe(true);
      if (path.startsWith('/admin/') || path.startsWith('/idp/')) expect(op.security).toEqual([]);
    }
  });

  it('describes every ApiError answer by reference, never inline', () => {
    const text = JSON.stringify(doc.paths);
    expect(text).not.toContain('"error_description"');
    expect(text).toContain('"$ref":"#/components/schemas/ApiError"');
    for (const [path, method, op] of operations(doc)) {
      expect(op.responses.default, `${method} ${path}`).toEqual({
        $ref: '#/components/responses/Error',
      });
    }
  });

  it('has form and event bodies on the methods that take them, and only there', () => {
    const paths = doc.paths as Record<string, Record<string, Operation>>;
    const form = 'application/x-www-form-urlencoded';
    expect(
      Object.keys((paths['/standby/authz/.jwt']!.post!.requestBody as Json).content as Json),
    ).toEqual([form]);
    expect(paths['/standby/authz/.jwt']!.get!.requestBody).toBeUndefined();
    expect(Object.keys((paths['/events/put']!.post!.requestBody as Json).content as Json)).toEqual([
      'application/jose',
      'application/json',
    ]);
    expect(paths['/main/licensing/actions/checkout']!.post!.responses).toHaveProperty('415');
  });
});

describe('/openapi.json security schemes', () => {
  it('follow --wire-names', async () => {
    const doc = await documentOf({
      wireNames: { apiKeyHeader: 'Acme-ApiKey', idTokenScheme: 'AcmeIdToken' },
    });
    const schemes = (doc.components as Json).securitySchemes as Record<string, Json>;
    expect(schemes['Service-ApiKey']).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'Acme-ApiKey',
    });
    // Authorization schemes of their own: apiKey schemes of the Authorization header, the scheme
    // word in the description (Prism refuses http schemes it does not know).
    expect(schemes.IdToken).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
    expect(schemes.IdToken!.description).toContain('`Authorization: AcmeIdToken <ID token>`');
    expect(schemes.Bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.ServiceKeyHash).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
    });
    expect(schemes.ServiceKeyHash!.description).toContain('`Authorization: ServiceKeyHash <hex>`');
  });

  it('describe main fault answers (5XX HTML, Retry-After) only with --admin', async () => {
    const withAdmin = await documentOf({ admin: true });
    const without = await documentOf({});
    const op = (doc: Json) =>
      ((doc.paths as Json)['/main/authz/.jwt'] as Record<string, Operation>).get!;
    expect(op(withAdmin).responses['5XX']).toEqual({ $ref: '#/components/responses/Fault' });
    expect(op(without).responses['5XX']).toBeUndefined();
    const fault = ((withAdmin.components as Json).responses as Record<string, Json>).Fault!;
    expect(Object.keys(fault.content as Json)).toEqual(['text/html']);
    expect(fault.headers).toHaveProperty('Retry-After');
  });
});

describe('real traffic through Stoplight Prism (validating proxy) against /openapi.json', () => {
  let target: TrafficServer;
  let proxy: PrismProxy;
  let results: TrafficResult[];
  beforeAll(async () => {
    target = await startTrafficServer();
    const file = join(dir, 'served.json');
    await writeFile(file, await (await fetch(`${target.origin}/openapi.json`)).text());
    proxy = await startPrismProxy(file, target.origin);
    results = await driveTraffic(proxy.origin, target);
  }, 120_000);
  afterAll(async () => {
    await proxy?.close();
    await target?.close();
  });

  it('covers writes, reads, form posts, faults and error answers', () => {
    const statuses = new Set(results.map((r) => r.status));
    for (const status of [200, 201, 204, 400, 401, 403, 404, 409, 413, 415, 500, 503]) {
      expect(statuses, `no ${status} in the traffic`).toContain(status);
    }
    const types = new Set(results.map((r) => r.contentType.split(';')[0]));
    for (const type of [
      'application/json',
      'application/jwt',
      'text/html',
      'text/css',
      'text/javascript',
    ]) {
      expect(types).toContain(type);
    }
  });

  it('finds nothing against the document', () => {
    const findings = results.flatMap((r) =>
      r.violations
        .filter((v) => countsAgainstDocument(r, v))
        .map(
          (v) =>
            `${r.step.method} ${r.step.path.slice(0, 80)} -> ${r.status}: ${v.location.join('.')} ${v.message}`,
        ),
    );
    expect(findings).toEqual([]);
  });

  it('is really validating: every deliberately invalid request is flagged, and responses are read', () => {
    for (const result of results.filter((r) => r.step.intent === 'invalid')) {
      expect(
        result.violations.some((v) => v.location[0] === 'request'),
        `${result.step.name}: Prism found nothing`,
      ).toBe(true);
    }
    // The one response finding the document cannot avoid: feed timestamps above 2^53. It is the
    // only tool limit exempted: the standby's schemes are checked like any other.
    expect(TOOL_LIMITS).toHaveLength(1);
    const int64 = results
      .flatMap((r) => r.violations)
      .filter((v) => TOOL_LIMITS[0]!.matches(v, results[0]!.step));
    expect(int64.length).toBeGreaterThan(0);
    const standby = results.filter(
      (r) => r.step.path.startsWith('/standby/') && r.step.intent === 'valid',
    );
    expect(standby.length).toBeGreaterThan(15);
    expect(standby.flatMap((r) => r.violations)).toEqual([]);
  });
});
