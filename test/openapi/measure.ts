/**
 * measure.ts: counts what Stoplight Prism, as a validating proxy, finds on the OpenAPI traffic
 * (test/helpers/openapi/traffic.ts) against a given document, for before/after figures
 * (`npx tsx test/openapi/measure.ts [document.json]`; default: the server's own /openapi.json).
 *
 * Prints: requests, requests with a finding that counts against the document, findings by kind,
 * and the tool-limit findings apart. Assumes nothing else; starts and stops its own server.
 */

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startPrismProxy } from '../helpers/openapi/prism-proxy.js';
import {
  countsAgainstDocument,
  driveTraffic,
  startTrafficServer,
  TOOL_LIMITS,
} from '../helpers/openapi/traffic.js';

async function main(): Promise<void> {
  const target = await startTrafficServer();
  const dir = await mkdtemp(join(tmpdir(), 'openapi-measure-'));
  try {
    let document = process.argv[2] ? resolve(process.argv[2]) : undefined;
    if (!document) {
      document = join(dir, 'openapi.json');
      await writeFile(document, await (await fetch(`${target.origin}/openapi.json`)).text());
    }
    const proxy = await startPrismProxy(document, target.origin);
    try {
      const results = await driveTraffic(proxy.origin, target);
      const flagged = results.filter((r) => r.violations.some((v) => countsAgainstDocument(r, v)));
      const kinds = new Map<string, number>();
      let limits = 0;
      const byLimit = new Map<string, number>();
      const withLimit = new Set<unknown>();
      for (const result of results) {
        for (const v of result.violations) {
          const limit = TOOL_LIMITS.find((l) => l.matches(v, result.step));
          if (limit) {
            limits++;
            withLimit.add(result);
            byLimit.set(limit.why, (byLimit.get(limit.why) ?? 0) + 1);
          } else if (countsAgainstDocument(result, v)) {
            const kind = `${v.location.slice(0, 2).join('.')}: ${v.message.slice(0, 90)}`;
            kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
          }
        }
      }
      console.log(`document: ${process.argv[2] ?? 'the server /openapi.json'}`);
      const anyFinding = results.filter((r) => r.violations.length > 0).length;
      console.log(
        `requests: ${results.length}; with any Prism finding: ${anyFinding}; flagged against the document: ${flagged.length}`,
      );
      for (const r of flagged)
        console.log(
          `  ${r.step.method} ${r.step.path.slice(0, 60)} -> ${r.status} (${r.step.name})`,
        );
      console.log('findings by kind:');
      for (const [kind, n] of [...kinds].sort((a, b) => b[1] - a[1]))
        console.log(`  ${n}  ${kind}`);
      console.log(
        `tool-limit findings (not counted): ${limits}, on ${withLimit.size} requests; by limit:`,
      );
      for (const [why, n] of byLimit) console.log(`  ${n}  ${why.slice(0, 100)}`);
    } finally {
      await proxy.close();
    }
  } finally {
    await target.close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
