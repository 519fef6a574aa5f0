import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { eventChecks } from './event-checks.js';
import { type ConformanceTarget, formatReport, runConformance } from './runner.js';
import { standbyChecks } from './standby-checks.js';
import { startMockTarget, withSigners } from './targets.js';

const USAGE = `Usage: npm run conformance -- [options]

With no --standby-url and no --event-url, starts the mock server on a free port and checks it
(every check, management included). Against a deployment, only what the options allow runs;
nothing changes its state unless --allow-management is given.

  --standby-url <url>               standby base URL
  --api-key <key>                   standby management API key
  --id-token <jwt>                  a valid ID token for the standby
  --service-key-hash <hex>          a ServiceKeyHash the standby accepts
  --idp-private-key <pem file>      key of a trusted issuer: enables the ID-token checks
  --idp-key-id <kid>                kid for tokens signed with --idp-private-key
  --issuer <iss> --client-id <id>   claims for tokens signed with --idp-private-key
  --event-url <url>                 event service base URL
  --event-read-token <jwt>          a read JWT with "*": true
  --event-reader-private-key <file> a trusted reader key: enables the read-claim checks
  --event-writer-private-key <file> a trusted writer key (events are written as signed JWS)
  --allow-management                run state-changing checks (enable/disable, keys, event writes)
  --propagation-timeout-ms <n>      wait for enable/disable to take effect (default 10000)
`;

function key(file: string | undefined): KeyObject | undefined {
  return file === undefined ? undefined : createPrivateKey(readFileSync(file, 'utf8'));
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    strict: true,
    options: {
      'standby-url': { type: 'string' },
      'api-key': { type: 'string' },
      'id-token': { type: 'string' },
      'service-key-hash': { type: 'string' },
      'idp-private-key': { type: 'string' },
      'idp-key-id': { type: 'string' },
      issuer: { type: 'string' },
      'client-id': { type: 'string' },
      'event-url': { type: 'string' },
      'event-read-token': { type: 'string' },
      'event-reader-private-key': { type: 'string' },
      'event-writer-private-key': { type: 'string' },
      'allow-management': { type: 'boolean' },
      'propagation-timeout-ms': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  let target: ConformanceTarget;
  let close = async () => {};
  if (values['standby-url'] === undefined && values['event-url'] === undefined) {
    const mock = await startMockTarget();
    target = mock.target;
    close = mock.close;
    process.stdout.write(`Checking a mock server started at ${target.standbyUrl}\n`);
  } else {
    const base: ConformanceTarget = { allowManagement: values['allow-management'] ?? false };
    if (values['standby-url']) base.standbyUrl = values['standby-url'].replace(/\/$/, '');
    if (values['event-url']) base.eventUrl = values['event-url'].replace(/\/$/, '');
    if (values['api-key']) base.apiKey = values['api-key'];
    if (values['id-token']) base.idToken = values['id-token'];
    if (values['service-key-hash']) base.serviceKeyHash = values['service-key-hash'];
    if (values['event-read-token']) base.readToken = values['event-read-token'];
    if (values['propagation-timeout-ms'])
      base.propagationTimeoutMs = Number(values['propagation-timeout-ms']);
    target = withSigners(base, {
      ...(values['idp-private-key'] ? { idpKey: key(values['idp-private-key'])! } : {}),
      ...(values['idp-key-id'] ? { idpKeyId: values['idp-key-id'] } : {}),
      ...(values.issuer ? { issuer: values.issuer } : {}),
      ...(values['client-id'] ? { clientId: values['client-id'] } : {}),
      ...(values['event-reader-private-key']
        ? { readerKey: key(values['event-reader-private-key'])! }
        : {}),
      ...(values['event-writer-private-key']
        ? { writerKey: key(values['event-writer-private-key'])! }
        : {}),
    });
  }
  try {
    const results = await runConformance(target, [...standbyChecks, ...eventChecks]);
    process.stdout.write(`${formatReport(results)}\n`);
    return results.some((result) => result.status === 'fail') ? 1 : 0;
  } finally {
    await close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(
      `conformance: ${err instanceof Error ? err.message : String(err)}\n\n${USAGE}`,
    );
    process.exit(2);
  },
);
