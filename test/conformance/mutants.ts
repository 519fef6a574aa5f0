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
  /** The rule (a check's `rule` text) this mutant breaks. */
  breaks: string;
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
const setJson = (res: ProxiedResponse, value: unknown) => {
  res.body = Buffer.from(JSON.stringify(value));
};

/** One mutant per broken rule; the conformance test expects each to be caught by name. */
export const mutants: Record<string, Mutant> = {
  'status check answers a string': {
    breaks: 'GET /enabled and GET /disabled answer 200 with opposite JSON booleans',
    response(req, res) {
      if (
        req.method === 'GET' &&
        /\/standby\/(enabled|disabled)$/.test(req.path) &&
        res.status === 200
      ) {
        setJson(res, String(json(res)));
      }
    },
  },
  'no WWW-Authenticate challenge': {
    breaks:
      'a request without Authorization gets 401 ApiError unauthorized and WWW-Authenticate naming both schemes',
    response(_req, res) {
      delete res.headers['www-authenticate'];
    },
  },
  'management accepts any API key': {
    breaks:
      'a management call with a wrong Service-ApiKey gets 401 ApiError invalid_api_key and changes nothing',
    request(req) {
      if (req.headers['service-apikey'] === 'wrong-key')
        req.headers['service-apikey'] = 'conformance-api-key';
    },
  },
  'leases served as text/plain': {
    breaks:
      'consume answers application/jwt, one RS256 token per item in request order joined by &',
    response(req, res) {
      if (req.path.startsWith('/standby/authz/.jwt') && res.status === 200)
        res.headers['content-type'] = 'text/plain';
    },
  },
  'JWKS without the root certificate': {
    breaks:
      'every JWK is RSA/sig/RS256 with n, e and x5c = [signing, root]: chain valid, 5 years, x5c[0] modulus = n',
    response(req, res) {
      if (req.path === '/standby/.well-known/jwks.json' && res.status === 200) {
        const body = json(res) as { keys: Array<{ x5c: string[] }> };
        for (const key of body.keys) key.x5c = key.x5c.slice(0, 1);
        setJson(res, body);
      }
    },
  },
  'timestamps rounded through Number': {
    breaks:
      'a feed is [older, events ascending, newer]; eventReceived digits equal eventReceived_str; updateUrl = newer url',
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
    breaks:
      'a reader waiting with after and maxWaitMs returns the event written meanwhile; with none it returns an empty page',
    request(req) {
      if (req.path.startsWith('/events/get/'))
        req.path = req.path.replace(/maxWaitMs=\d+/, 'maxWaitMs=0');
    },
  },
  'batches written partially': {
    breaks: 'invalid events get 400 invalid_request and a batch with one bad event writes nothing',
    response(req, res) {
      if (req.path.startsWith('/events/get/conformance-invalid') && res.status === 200) {
        const body = json(res) as { count: number; objects: unknown[] };
        body.objects.splice(1, 0, { eventType: 'T', eventId: 'ghost', eventReceived_str: '1' });
        body.count += 1;
        setJson(res, body);
      }
    },
  },
};
