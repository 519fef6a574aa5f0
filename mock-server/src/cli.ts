import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { resolveSigningThreads } from './crypto/signing-pool.js';
import { createDevCertificates, LOOPBACK_NAMES } from './dev-cert.js';
import type { MockServerLimits } from './limits.js';
import { type StartServerOptions, startServer } from './server.js';

const USAGE = `Usage: standby-mock-server [options]

  --port <n>                  port (default 8787; 0 picks a free port)
  --host <host>               host (default 127.0.0.1)
  --api-key <key>             standby management key (default: generated, kept in --data-dir)
  --data-dir <dir>            keep keys, state and events on disk (default: memory only)
  --state dormant|active      initial standby state (default dormant)
  --idp-public-key <file>     PEM or JWKS trusted for ID tokens (repeatable)
  --public-url <url>          the server's own base URL: lease iss and printed URLs
                              (default: the URL it listens on)
  --issuer <iss>              ID-token issuer (default: <public-url>/idp)
  --client-id <id>            client id required in ID-token aud (default mock-client)
  --service-public-key <file> main deployment key for ServiceKeyHash (repeatable)
  --event-writer-key <file>   public key trusted to sign events (repeatable)
  --event-reader-key <file>   public key trusted to sign read JWTs (repeatable)
  --require-signed-events     refuse legacy application/json event writes
  --items <a,b,...>           mock main catalogue (default: every item)
  --propagation-delay-ms <n>  delay before enable/disable takes effect (default 0)
  --wire-names <k=v,...>      vendor header/scheme names: apiKeyHeader, signingKeyIdHeader,
                              idTokenScheme, serviceKeyHashScheme (default: Service-ApiKey,
                              Service-SigningKeyId, IdToken, ServiceKeyHash)
  --cors-origin <origin>      origin allowed to read answers cross-origin (repeatable;
                              default: any origin; /admin: loopback origins and these)
  --allowed-host <name>       host name /admin answers besides loopback names and the
                              --public-url host (repeatable; others get 403)
  --admin                     serve /admin (faults on every service, scenarios, the request
                              journal, reset, clock, main provisioning) and the QA console at
                              /admin/console; it answers loopback pages and hosts only
  --signing-threads <n>       worker threads that sign leases; 0 signs on the event loop
                              (default: one per core, 0 on a single core)
  --main-audit-events         main also writes an audit event (Created, Updated, Deleted)
                              per change
  --tls-cert <file>           serve HTTPS with this PEM certificate (with --tls-key); the
                              printed URLs are then https://
  --tls-key <file>            the PEM private key of --tls-cert
  --make-dev-cert <dir>       write a throwaway CA (ca.pem) and a certificate for localhost,
                              127.0.0.1 and ::1 (cert.pem, key.pem) into <dir>, then exit
  --help                      show this help

Limits:
  --max-items <n>             items or released lease ids per /authz/.jwt (default 100)
  --max-id-length <n>         characters of event/source/object ids, write and read (default 512)
  --max-json-depth <n>        JSON nesting of an event field or any JSON body (default 64)
  --max-body-bytes <n>        largest request body (default 1048576)
  --request-timeout-ms <n>    a request must arrive whole within this, else 408 (default 30000)
  --headers-timeout-ms <n>    the headers must arrive within this (default: request timeout)
  --keep-alive-timeout-ms <n> idle keep-alive connections close after this (default 72000)
  --max-clock-offset-ms <n>   largest admin clock offset either way (default ten years)
  --max-licenses <n>          licenses the mock main holds, and changes waiting in its
                              outbox (default 10000)
  --max-standby-outbox <n>    standby answers whose events may wait in its outbox
                              (default 100000)

Every option, the admin API and the limits in depth:
https://github.com/standby-licensing/standby-licensing/blob/main/docs/mock-server.md
`;

/** Command-line flags of the limits and the `limits` option each one sets. */
const LIMIT_OPTIONS: ReadonlyArray<readonly [string, keyof MockServerLimits]> = [
  ['max-items', 'maxItemsPerRequest'],
  ['max-id-length', 'maxIdLength'],
  ['max-json-depth', 'maxJsonDepth'],
  ['max-body-bytes', 'maxBodyBytes'],
  ['request-timeout-ms', 'requestTimeoutMs'],
  ['headers-timeout-ms', 'headersTimeoutMs'],
  ['keep-alive-timeout-ms', 'keepAliveTimeoutMs'],
  ['max-clock-offset-ms', 'maxClockOffsetMs'],
  ['max-licenses', 'maxLicenses'],
  ['max-standby-outbox', 'maxStandbyOutbox'],
];

function readKeys(files: string[] | undefined): string[] | undefined {
  return files?.map((file) => readFileSync(file, 'utf8'));
}

/** The parsed command line: the server's options, or the folder to write dev certificates to. */
type CommandLine = StartServerOptions & { makeDevCert?: string };

function parseCommandLine(argv: string[]): CommandLine | undefined {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'api-key': { type: 'string' },
      'data-dir': { type: 'string' },
      state: { type: 'string' },
      'idp-public-key': { type: 'string', multiple: true },
      issuer: { type: 'string' },
      'public-url': { type: 'string' },
      'cors-origin': { type: 'string', multiple: true },
      'allowed-host': { type: 'string', multiple: true },
      'client-id': { type: 'string' },
      'service-public-key': { type: 'string', multiple: true },
      'event-writer-key': { type: 'string', multiple: true },
      'event-reader-key': { type: 'string', multiple: true },
      'require-signed-events': { type: 'boolean' },
      items: { type: 'string' },
      'propagation-delay-ms': { type: 'string' },
      'wire-names': { type: 'string' },
      admin: { type: 'boolean' },
      'signing-threads': { type: 'string' },
      'main-audit-events': { type: 'boolean' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      'make-dev-cert': { type: 'string' },
      help: { type: 'boolean' },
      ...Object.fromEntries(LIMIT_OPTIONS.map(([flag]) => [flag, { type: 'string' } as const])),
    },
  });
  if (values.help) return undefined;
  const port = values.port === undefined ? 8787 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new TypeError(`--port must be an integer from 0 to 65535, got ${values.port}`);
  }
  const options: StartServerOptions = { port };
  if (values.host !== undefined) options.host = values.host;
  if (values['api-key'] !== undefined) options.apiKey = values['api-key'];
  if (values['data-dir'] !== undefined) options.dataDir = values['data-dir'];
  if (values.state !== undefined) {
    if (values.state !== 'dormant' && values.state !== 'active') {
      throw new TypeError(`--state must be dormant or active, got ${values.state}`);
    }
    options.state = values.state;
  }
  const idp = readKeys(values['idp-public-key']);
  if (idp) options.idpPublicKeys = idp;
  if (values.issuer !== undefined) options.issuer = values.issuer;
  if (values['public-url'] !== undefined) options.publicUrl = values['public-url'];
  if (values['cors-origin'] !== undefined) options.corsOrigins = values['cors-origin'];
  if (values['allowed-host'] !== undefined) options.allowedHosts = values['allowed-host'];
  const limits: Partial<MockServerLimits> = {};
  for (const [flag, name] of LIMIT_OPTIONS) {
    const text = (values as Record<string, unknown>)[flag];
    if (typeof text !== 'string') continue;
    if (!/^[0-9]+$/.test(text))
      throw new TypeError(`--${flag} must be a whole number, got ${text}`);
    limits[name] = Number(text);
  }
  if (Object.keys(limits).length > 0) options.limits = limits;
  if (values['client-id'] !== undefined) options.clientId = values['client-id'];
  const service = readKeys(values['service-public-key']);
  if (service) options.servicePublicKeys = service;
  const writers = readKeys(values['event-writer-key']);
  if (writers) options.eventWriterKeys = writers;
  const readers = readKeys(values['event-reader-key']);
  if (readers) options.eventReaderKeys = readers;
  if (values['require-signed-events']) options.requireSignedEvents = true;
  if (values.items !== undefined) {
    options.items = values.items
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  }
  if (values['propagation-delay-ms'] !== undefined) {
    const delay = Number(values['propagation-delay-ms']);
    if (!Number.isInteger(delay) || delay < 0 || delay > 300_000) {
      throw new TypeError('--propagation-delay-ms must be an integer from 0 to 300000');
    }
    options.propagationDelayMs = delay;
  }
  if (values['wire-names'] !== undefined) {
    options.wireNames = Object.fromEntries(
      values['wire-names'].split(',').map((pair) => {
        const [name, value] = pair.split('=').map((part) => part.trim());
        if (!name || !value)
          throw new TypeError(`--wire-names expects name=value pairs, got ${pair}`);
        return [name, value];
      }),
    );
  }
  if (values.admin) options.admin = true;
  if (values['signing-threads'] !== undefined) {
    const text = values['signing-threads'];
    options.signingThreads = resolveSigningThreads(
      /^\d+$/.test(text) ? Number(text) : Number.NaN,
      '--signing-threads',
    );
  }
  if (values['main-audit-events']) options.mainAuditEvents = true;
  const certFile = values['tls-cert'];
  const keyFile = values['tls-key'];
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw new TypeError(
      '--tls-cert and --tls-key go together: give both (HTTPS) or neither (HTTP)',
    );
  }
  if (certFile !== undefined && keyFile !== undefined) {
    options.tls = { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
  }
  if (values['make-dev-cert'] !== undefined) {
    return { ...options, makeDevCert: values['make-dev-cert'] };
  }
  return options;
}

/** `--make-dev-cert <dir>`: writes a throwaway CA and a localhost certificate, says what next. */
async function writeDevCertificates(dir: string): Promise<void> {
  const { ca, cert, key } = await createDevCertificates();
  mkdirSync(dir, { recursive: true });
  // `wx`: never overwrite a key or certificate someone relies on. The CA's key is not written:
  // nothing can issue another certificate under this CA.
  writeFileSync(join(dir, 'ca.pem'), ca.certificate, { flag: 'wx' });
  writeFileSync(join(dir, 'cert.pem'), cert, { flag: 'wx' });
  writeFileSync(join(dir, 'key.pem'), key, { flag: 'wx', mode: 0o600 });
  const at = (file: string) => join(dir, file);
  process.stdout.write(
    `Wrote a throwaway CA and a certificate for ${LOOPBACK_NAMES.join(', ')} (valid 30 days):
  ${at('ca.pem')}    the CA certificate: trust it in the client (tls.ca, or NODE_EXTRA_CA_CERTS)
  ${at('cert.pem')}  the server certificate
  ${at('key.pem')}   its private key (keep it out of version control)
Serve HTTPS with:
  standby-mock-server --tls-cert ${at('cert.pem')} --tls-key ${at('key.pem')}
`,
  );
}

async function main(): Promise<void> {
  let parsed: CommandLine | undefined;
  try {
    parsed = parseCommandLine(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`standby-mock-server: ${(err as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (!parsed) {
    process.stdout.write(USAGE);
    return;
  }
  const { makeDevCert, ...options } = parsed;
  if (makeDevCert !== undefined) {
    await writeDevCertificates(makeDevCert);
    return;
  }
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer({ ...options, logger: { level: 'info', stream: process.stderr } });
  } catch (err) {
    // Option values are validated while the app is built (TypeError naming the option).
    if (!(err instanceof TypeError)) throw err;
    process.stderr.write(`standby-mock-server: ${err.message}\n\n${USAGE}`);
    process.exit(2);
  }
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    server.app.log.info({ signal }, 'shutting down');
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`standby-mock-server: shutdown failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  // Handlers go in before the line is printed: a supervisor may signal as soon as it reads it.
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.stdout.write(`${JSON.stringify(server.info)}\n`);
  if (options.admin) {
    const consoleUrl = server.info.mainUrl.replace(/\/main$/, '/admin/console');
    server.app.log.info({ consoleUrl }, `QA console: ${consoleUrl}`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(
    `standby-mock-server: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
});
