// The table "What the app shows its user" in docs/app-integration.md and examples/user-message.ts
// say the same thing: every row's sentence is what the function returns for that code and each
// of its reasons, a row that shows "nothing" is undefined, and every error code has a row.
import { readFile } from 'node:fs/promises';
import type { LicensingErrorCode } from '@standby-licensing/sdk';
import { expect, it } from 'vitest';
import { userMessage } from './user-message.js';

const CODES: LicensingErrorCode[] = [
  'SERVICE_UNAVAILABLE',
  'UNAUTHORIZED',
  'STANDBY_DORMANT',
  'TOKEN_INVALID',
  'ID_TOKEN_EXPIRED',
  'INVALID_ARGUMENT',
  'FORBIDDEN',
  'NOT_FOUND',
  'REQUEST_REJECTED',
  'FEED_CURSOR_REPEATED',
  'LICENSE_DENIED',
  'CLIENT_CLOSED',
  'CLOCK_ROLLBACK',
  'LEASE_STORE_INVALID',
];

/** The backticked names in a cell, e.g. "`proxy`, `tls`" → ['proxy', 'tls']. */
const names = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

it('docs/app-integration.md and userMessage() agree on every code and reason', async () => {
  const doc = await readFile(new URL('../docs/app-integration.md', import.meta.url), 'utf8');
  const start = doc.indexOf('## What the app shows its user');
  const section = doc.slice(start, doc.indexOf('\n## ', start + 1));
  const rows = section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  expect(rows.length).toBeGreaterThan(15);
  const covered = new Set<string>();
  for (const [codeCell, reasonCell, userCell] of rows) {
    const reasons = names(reasonCell!);
    for (const code of names(codeCell!)) {
      covered.add(code);
      for (const reason of reasons.length > 0 ? reasons : [undefined]) {
        const said = userMessage({ code: code as LicensingErrorCode, reason });
        const quoted = /^"([^"]+)"/.exec(userCell!)?.[1];
        if (quoted === undefined) {
          expect(userCell, `${code}/${reason}`).toMatch(/^nothing/);
          expect(said, `${code}/${reason}`).toBeUndefined();
        } else {
          expect(said, `${code}/${reason}`).toBe(quoted);
        }
      }
    }
  }
  expect([...covered].sort()).toEqual([...CODES].sort());
});
