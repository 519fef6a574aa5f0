import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the mutant proxy sees it; transforms may change any field. */
export interface ProxiedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** A response as the mutant proxy sees it; transforms may change any field. */
export interface ProxiedResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** A deliberately wrong server: the real mock server behind a proxy that breaks one rule. */
export interface Mutant {
  /** Ids of exactly the checks this mutant makes fail (every other check still passes). */
  breaks: readonly string[];
  request?(req: ProxiedRequest): void;
  response?(req: ProxiedRequest, res: ProxiedResponse): void;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Starts a loopback proxy in front of `upstream` (an origin) that applies the mutant. */
export async function startMutantProxy(
  upstream: string,
  mutant: Mutant,
): Promise<{ origin: string; close(): Promise<void> }> {
  const server: Server = createServer(async (incoming, outgoing) => {
    try {
      const req: ProxiedRequest = {
        method: incoming.method ?? 'GET',
        path: incoming.url ?? '/',
        headers: Object.fromEntries(
          Object.entries(incoming.headers).flatMap(([k, v]) =>
            typeof v === 'string' && k !== 'host' && k !== 'content-length' ? [[k, v]] : [],
          ),
        ),
        body: await readBody(incoming),
      };
      mutant.request?.(req);
      const upstreamRes = await fetch(`${upstream}${req.path}`, {
        method: req.method,
        headers: req.headers,
        ...(req.body.length > 0 ? { body: new Uint8Array(req.body) } : {}),
      });
      const res: ProxiedResponse = {
        status: upstreamRes.status,
        headers: Object.fromEntries(
          [...upstreamRes.headers].filter(
            ([k]) =>
              !['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(
                k,
              ),
          ),
        ),
        body: Buffer.from(await upstreamRes.arrayBuffer()),
      };
      mutant.response?.(req, res);
      outgoing.writeHead(res.status, res.headers).end(res.body);
    } catch (err) {
      outgoing
        .writeHead(502, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: 'proxy_error', error_description: String(err) }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const json = (res: ProxiedResponse) => JSON.parse(res.body.toString('utf8'));
/** A 200 read of the standby's feed or a consumer's feed (where its usage events are). */
const isStandbyEventRead = (req: ProxiedRequest, res: ProxiedResponse) =>
  res.status === 200 && /^\/events\/get\/(standby|consumer\/)/.test(req.path);
const setJson = (res: ProxiedResponse, value: unknown) => {
  res.body = Buffer.from(JSON.stringify(value));
};

/** One mutant per broken rule; the conformance test expects exactly its `breaks` to fail. */
export const mutants: Record<string, Mutant> = {
  // Only the status check GET /disabled (no management key): GET /enabled stays right, so the
  // checks that wait for a state through it are not dragged along.
  'status check answers a string': {
    breaks: ['standby.status.opposite-booleans', 'standby.dormant.refuses-leases'],
    response(req, res) {
      if (
        req.method === 'GET' &&
        req.path === '/standby/disabled' &&
        req.headers['service-apikey'] === undefined &&
        res.status === 200
      ) {
        setJson(res, String(json(res)));
      }
    },
  },
  'no WWW-Authenticate challenge': {
    breaks: ['standby.auth.missing-authorization'],
    response(_req, res) {
      delete res.headers['www-authenticate'];
    },
  },
  'management accepts any API key': {
    breaks: ['standby.management.wrong-api-key'],
    request(req) {
      if (req.headers['service-apikey'] === 'wrong-key')
        req.headers['service-apikey'] = 'conformance-api-key';
    },
  },
  'leases served as text/plain': {
    breaks: [
      'standby.authz.consume',
      'standby.authz.claims',
      'standby.authz.license-and-lease-ids',
      'standby.authz.form-post',
      'standby.authz.release',
      'standby.jwks.tokens-verify',
      'standby.jwks.key-rotation',
      // Every usage check takes its leases first.
      'standby.usage.grant-events',
      'standby.usage.renew-and-release-events',
      'standby.usage.exactly-once',
      'standby.usage.service-key-consumer',
      'standby.usage.grace-seconds',
    ],
    response(req, res) {
      if (req.path.startsWith('/standby/authz/.jwt') && res.status === 200)
        res.headers['content-type'] = 'text/plain';
    },
  },
  'JWKS without the root certificate': {
    breaks: ['standby.jwks.certificate-chains'],
    response(req, res) {
      if (req.path === '/standby/.well-known/jwks.json' && res.status === 200) {
        const body = json(res) as { keys: Array<{ x5c: string[] }> };
        for (const key of body.keys) key.x5c = key.x5c.slice(0, 1);
        setJson(res, body);
      }
    },
  },
  'timestamps rounded through Number': {
    breaks: ['events.feeds.shape-and-timestamps'],
    response(req, res) {
      if (req.path.startsWith('/events/get/') && res.status === 200) {
        res.body = Buffer.from(
          res.body
            .toString('utf8')
            .replace(
              /"eventReceived":(\d+)/g,
              (_m, digits: string) => `"eventReceived":${Number(digits)}`,
            ),
        );
      }
    },
  },
  'long polls answered at once': {
    breaks: ['events.long-poll.wakes-on-write'],
    request(req) {
      if (req.path.startsWith('/events/get/'))
        req.path = req.path.replace(/maxWaitMs=\d+/, 'maxWaitMs=0');
    },
  },
  'batches written partially': {
    breaks: ['events.write.all-or-nothing'],
    response(req, res) {
      if (req.path.startsWith('/events/get/conformance-invalid') && res.status === 200) {
        const body = json(res) as { count: number; objects: unknown[] };
        body.objects.splice(1, 0, { eventType: 'T', eventId: 'ghost', eventReceived_str: '1' });
        body.count += 1;
        setJson(res, body);
      }
    },
  },
  // The standby's usage events, as a deployment that delivers each one twice would show them.
  'usage events delivered twice': {
    breaks: ['standby.usage.exactly-once'],
    response(req, res) {
      if (!isStandbyEventRead(req, res)) return;
      const body = json(res) as { count: number; objects: Array<{ eventSourceId?: string }> };
      body.objects = body.objects.flatMap((object) =>
        object.eventSourceId === 'standby' ? [object, object] : [object],
      );
      setJson(res, body);
    },
  },
  'usage events without the device': {
    breaks: ['standby.usage.grant-events'],
    response(req, res) {
      if (!isStandbyEventRead(req, res)) return;
      const body = json(res) as { objects: Array<{ data?: Record<string, unknown> }> };
      for (const object of body.objects) delete object.data?.hw;
      setJson(res, body);
    },
  },
};
