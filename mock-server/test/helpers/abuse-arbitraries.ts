// Test helper: fast-check generators of hostile and sloppy input for the mock server's abuse
// suite: query strings, headers, bodies, tokens and JWS, raw HTTP bytes.
import { createHmac, createSign, type KeyObject } from 'node:crypto';
import { RESERVED_ITEM_NAMES } from '@standby-licensing/wire';
import fc from 'fast-check';

/** Parameter names worth trying: every reserved one, every claim, feed query names, oddities. */
export const INTERESTING_NAMES = [
  'ItemA',
  'ItemB',
  // The wire's reserved names, from their one source of truth.
  ...RESERVED_ITEM_NAMES,
  'after',
  'before',
  'maxEventCount',
  'minWaitMs',
  'maxWaitMs',
  'newest',
  'route',
  'service',
  'constructor',
  'toString',
  '',
];

const URL_SAFE = /[A-Za-z0-9\-._~!$'()*+,;=:@/?%&]/;

/**
 * Text as it may appear in a request target: characters a client can send raw stay raw (`%`
 * included, so broken escapes get through), everything else is percent-encoded as UTF-8.
 */
export function toRequestTarget(text: string): string {
  let out = '';
  for (const char of text) out += URL_SAFE.test(char) ? char : encodeText(char);
  return out;
}

/** `encodeURIComponent`, with a lone surrogate sent as its (invalid) UTF-8 bytes instead of throwing. */
export function encodeText(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    out +=
      code >= 0xd800 && code <= 0xdfff
        ? `%${(0xe0 | (code >> 12)).toString(16).toUpperCase()}%${(0x80 | ((code >> 6) & 0x3f)).toString(16).toUpperCase()}%${(0x80 | (code & 0x3f)).toString(16).toUpperCase()}`
        : encodeURIComponent(char);
  }
  return out;
}

/** Short text from an alphabet rich in URL and JSON syntax, plus non-ASCII characters. */
export const trickyText = fc.string({
  unit: fc.oneof(
    fc.constantFrom(...'aZ09-_.~!$\'()*+,;=:@/?%&#[]{}"<>\\^`| \t'.split('')),
    fc.constantFrom('é', '\u{1F600}', '\u0000', '\uFFFF', '%zz', '%E0%A4%A', '%00', '%2F'),
    fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
  ),
  maxLength: 24,
});

const smallNumberText = fc.integer({ min: 0, max: 50 }).map(String);

/** A value for a parameter named `name`; wait times stay small so nothing parks for long. */
function parameterValue(name: string): fc.Arbitrary<string> {
  if (/wait/i.test(name)) {
    return fc.oneof(smallNumberText, fc.constantFrom('-1', 'x', '1e3', '', '1.5', '0x10'));
  }
  return fc.oneof(
    fc.constantFrom('', 'true', 'false', '1', '0', '-1', '1e3', 'cache', 'checkout', 'abc'),
    smallNumberText,
    fc.bigInt({ min: 0n, max: 2n ** 70n }).map(String),
    trickyText,
    fc.integer({ min: 600, max: 3000 }).map((n) => 'v'.repeat(n)),
    trickyText.map((text) => `;licenseId=${text};leaseId=${text}`),
  );
}

const parameter = fc
  .oneof(
    { weight: 3, arbitrary: fc.constantFrom(...INTERESTING_NAMES) },
    { weight: 2, arbitrary: trickyText },
    { weight: 1, arbitrary: fc.integer({ min: 300, max: 2000 }).map((n) => 'N'.repeat(n)) },
  )
  .chain((name) =>
    fc.option(parameterValue(name)).map((value) => (value === null ? name : `${name}=${value}`)),
  );

/** A query string (without `?`): up to 30 parameters, sometimes far more than any limit. */
export const queryString = fc
  .oneof(
    { weight: 8, arbitrary: fc.array(parameter, { maxLength: 30 }) },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 101, max: 400 })
        .map((n) => Array.from({ length: n }, (_, i) => `I${i}`)),
    },
  )
  .chain((parts) => fc.constantFrom('&', '&&', ';').map((sep) => parts.join(sep)))
  .map(toRequestTarget);

/** Printable ASCII, as a header value a client may send. */
export const headerText = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
  maxLength: 80,
});

/** The content types the routes take, most of the time; anything else now and then. */
export const bodyContentType = fc.oneof(
  { weight: 4, arbitrary: fc.constant('application/json') },
  { weight: 1, arbitrary: fc.constant('application/jose') },
  { weight: 1, arbitrary: fc.constant('application/x-www-form-urlencoded') },
  { weight: 2, arbitrary: fc.constant('__any__') },
);

/** Content types worth trying on every route. */
export const contentType = fc.oneof(
  fc.constantFrom(
    'application/json',
    'application/jose',
    'application/x-www-form-urlencoded',
    'text/plain',
    'application/octet-stream',
    'multipart/form-data; boundary=x',
    'application/json; charset=utf-16',
    'APPLICATION/JSON',
    ';;',
    '*/*',
  ),
  headerText,
);

/** An event-shaped JSON object, with the validation rules broken now and then. */
const eventLike = fc.record(
  {
    eventType: fc.oneof(fc.constantFrom('Ping', 'instruction', ''), trickyText, fc.integer()),
    eventSourceId: fc.oneof(
      fc.constantFrom('src', 'a/b', ''),
      trickyText,
      fc.integer({ min: 500, max: 1100 }).map((n) => 's'.repeat(n)),
    ),
    eventObjectType: fc.oneof(fc.constant('dev'), trickyText),
    eventObjectId: fc.oneof(fc.constant('1'), trickyText),
    eventId: fc.oneof(fc.uuid(), trickyText),
    eventReceived: fc.integer(),
    data: fc.jsonValue({ maxDepth: 3 }),
  },
  { requiredKeys: [] },
);

/** JSON nested `depth` containers deep around a scalar. */
export const nestedJson = (depth: number, open = '[', close = ']') =>
  `${open.repeat(depth)}1${close.repeat(depth)}`;

/** A request body: JSON of any shape, event-like JSON, deep JSON, text or bytes. */
export const bodyPayload: fc.Arbitrary<string | Buffer> = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
  eventLike.map((event) => JSON.stringify(event)),
  fc.array(eventLike, { maxLength: 5 }).map((events) => JSON.stringify(events)),
  fc
    .integer({ min: 60, max: 70 })
    .map((depth) => `{"eventType":"T","eventSourceId":"s","data":${nestedJson(depth)}}`),
  fc.integer({ min: 1000, max: 20_000 }).map((depth) => nestedJson(depth)),
  fc.integer({ min: 1000, max: 20_000 }).map((depth) => nestedJson(depth, '{"a":', '}')),
  // Deep values where each route's schema lets them through to the code behind it.
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        fc.integer({ min: 60, max: 20_000 }),
        fc.constantFrom(
          (deep: string) => `{"eventType":"T","eventSourceId":"s","data":${deep}}`,
          (deep: string) => `[{"eventType":"T","eventSourceId":"s","data":${deep}}]`,
          (deep: string) => `{"sub":"a","claims":{"c":${deep}}}`,
          (deep: string) => `{"sub":"a","aud":${deep}}`,
          (deep: string) => `[{"productName":"p","qty":1,"qtyDimension":"SEATS","x":${deep}}]`,
          (deep: string) => `{"mode":"error","route":${deep}}`,
        ),
      )
      .map(([depth, wrap]) => wrap(nestedJson(depth, '{"d":', '}'))),
  },
  queryString,
  trickyText,
  fc.uint8Array({ maxLength: 2000 }).map((bytes) => Buffer.from(bytes)),
  fc.constantFrom(
    '',
    'null',
    '{}',
    '[]',
    '{"__proto__":{"x":1}}',
    '{"constructor":{"prototype":{}}}',
  ),
);

/** Keys a generated JWS may be signed with. */
export interface SigningKeys {
  /** The built-in issuer's key (trusted for ID tokens and read tokens). */
  issuer: { kid: string; privateKey: KeyObject };
  /** The configured event writer key. */
  writer: { kid: string; privateKey: KeyObject };
  /** A key nobody trusts. */
  stranger: { kid: string; privateKey: KeyObject };
}

/** A generated JWS and whether it is bad whatever the context (never to be accepted). */
export interface CraftedJws {
  token: string;
  /** `crit` or `b64` in the header, a spelling other than canonical base64url, an algorithm other than RS256/384/512, or a signature no trusted key made. */
  forged: boolean;
  /** Short description for failure messages. */
  describe: string;
}

const HASH: Record<string, string> = { RS256: 'sha256', RS384: 'sha384', RS512: 'sha512' };

/** One flaw applied to an otherwise valid JWS; `none` leaves it valid. */
const FLAWS = [
  'none',
  'crit',
  'crit-b64',
  'b64',
  'standard-base64',
  'padded',
  'tampered',
  'truncated',
  'four-parts',
  'spaces',
  'stranger',
  'alg-HS256',
  'alg-none',
  'alg-PS256',
  'kid-unknown',
] as const;

/** Flaws that make a JWS one no server may accept. */
const FORGING = new Set<string>(FLAWS.filter((f) => f !== 'none' && f !== 'kid-unknown'));

/** Options of {@link craftedJws}. */
export interface CraftedJwsOptions {
  /** Who signs when nothing is wrong (`issuer` for tokens, `writer` for event writes). */
  signer: 'issuer' | 'writer';
  /** Payloads that are valid where the JWS is sent (claims of a good token, events). */
  payload: fc.Arbitrary<unknown>;
}

/**
 * Compact JWS that are valid but for exactly one flaw (a `crit` or `b64` header, standard
 * base64 or padding, a tampered or truncated signature, an untrusted signer, `alg` HS256 or
 * none, ...), or none at all, so the suite shows both that good ones pass and that no forged
 * one does. Signatures are real RSA signatures.
 */
export function craftedJws(
  keys: SigningKeys,
  options: CraftedJwsOptions,
): fc.Arbitrary<CraftedJws> {
  return fc
    .record({
      alg: fc.constantFrom('RS256', 'RS256', 'RS384', 'RS512'),
      withKid: fc.boolean(),
      flaw: fc.constantFrom(...FLAWS),
      payload: options.payload,
    })
    .map(({ alg: goodAlg, withKid, flaw, payload }) => {
      const signer = flaw === 'stranger' ? keys.stranger : keys[options.signer];
      const alg = flaw.startsWith('alg-') ? flaw.slice(4) : goodAlg;
      const header: Record<string, unknown> = { alg, typ: 'JWT' };
      if (withKid || flaw === 'kid-unknown') {
        header.kid = flaw === 'kid-unknown' ? 'no-such-kid' : signer.kid;
      }
      if (flaw === 'crit') Object.assign(header, { crit: ['exp'], exp: 1 });
      if (flaw === 'crit-b64') Object.assign(header, { crit: ['b64'], b64: true });
      if (flaw === 'b64') header.b64 = true;
      const segment = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const input = `${segment(header)}.${segment(payload)}`;
      const signature = HASH[alg]
        ? createSign(HASH[alg]).update(input).sign(signer.privateKey, 'base64url')
        : alg === 'HS256'
          ? createHmac('sha256', 'secret').update(input).digest('base64url')
          : alg === 'none'
            ? ''
            : createSign('sha256').update(input).sign(signer.privateKey, 'base64url');
      const tokens: Record<string, string> = {
        'standard-base64': `${input}.${Buffer.from(signature, 'base64url').toString('base64')}`,
        padded: `${input}.${signature}==`,
        tampered: `${input}.${signature.slice(0, -4)}${signature.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`,
        truncated: `${input}.${signature.slice(0, 20)}`,
        'four-parts': `${input}.${signature}.x`,
        spaces: `${input} .${signature}`,
      };
      return {
        token: tokens[flaw] ?? `${input}.${signature}`,
        forged: FORGING.has(flaw),
        describe: `${flaw}: ${JSON.stringify(header)} by ${flaw === 'stranger' ? 'stranger' : options.signer}`,
      };
    });
}

/** Raw HTTP/1.1 request bytes: mostly well-formed requests with hostile parts, some broken. */
export function rawRequest(paths: readonly string[]): fc.Arbitrary<string> {
  const method = fc.oneof(
    {
      weight: 8,
      arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'),
    },
    { weight: 1, arbitrary: fc.constantFrom('CONNECT', 'TRACE', 'PROPFIND', 'get', 'G ET', '') },
    { weight: 1, arbitrary: trickyText },
  );
  const target = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...paths) },
    {
      weight: 4,
      arbitrary: fc.constantFrom(...paths).chain((path) => queryString.map((q) => `${path}?${q}`)),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom('*', 'http://evil.test/standby/enabled', '//x', '/%', '/..%2F..'),
    },
    { weight: 1, arbitrary: trickyText.map(toRequestTarget) },
  );
  const version = fc.oneof(
    { weight: 8, arbitrary: fc.constant('HTTP/1.1') },
    { weight: 2, arbitrary: fc.constantFrom('HTTP/1.0', 'HTTP/2.0', 'HTTP/9', 'http/1.1', '') },
  );
  const goodHeader = fc.constantFrom(
    'Content-Type: application/json',
    'Content-Type: application/jose',
    'Content-Type: application/x-www-form-urlencoded',
    'Origin: http://page.example.test',
    'Authorization: IdToken x.y.z',
    'Authorization: Bearer x.y.z',
    'Service-ApiKey: nope',
    'Accept: */*',
  );
  const oddHeader = fc.oneof(
    fc.constantFrom(
      'Host: user:pw@evil.test',
      'Content-Length: -1',
      'Content-Length: 99999999999999999999',
      'Transfer-Encoding: chunked',
      'Transfer-Encoding: gzip, chunked',
      'Expect: 100-continue',
      'Expect: teapot',
      'Upgrade: websocket',
      'Connection: Upgrade',
      'X-Bad\u0000Header: 1',
      'NoColon',
      ' Folded: continuation',
    ),
    fc.tuple(headerText, headerText).map(([name, value]) => `${name}: ${value}`),
    fc.integer({ min: 1000, max: 40_000 }).map((n) => `X-Long: ${'a'.repeat(n)}`),
  );
  const headerLine = fc.oneof(
    { weight: 4, arbitrary: goodHeader },
    { weight: 1, arbitrary: oddHeader },
  );
  return fc
    .record({
      method,
      target,
      version,
      // Mostly with a Host, as real clients send it.
      host: fc.oneof({ weight: 9, arbitrary: fc.constant(true) }, fc.constant(false)),
      headers: fc.array(headerLine, { maxLength: 5 }),
      body: fc.oneof(
        fc.constant(''),
        trickyText,
        fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
        fc.constant('0\r\n\r\n'),
        fc.constant('5\r\nhello\r\nzz'),
      ),
      // A body without its length is read as the start of a second (broken) request.
      declareLength: fc.oneof({ weight: 6, arbitrary: fc.constant(true) }, fc.constant(false)),
    })
    .map(({ method, target, version, host, headers, body, declareLength }) => {
      const lines = [...(host ? ['Host: x'] : []), ...headers];
      if (declareLength) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
      lines.push('Connection: close');
      return `${method} ${target} ${version}\r\n${lines.join('\r\n')}\r\n\r\n${body}`;
    });
}

/**
 * fast-check run options for the abuse suite: `numRuns`, and a failure report that stays
 * readable (the counterexample cut to 600 characters, with the seed and path to replay it),
 * since generated input can be megabytes long.
 */
export function abuseRunOptions(numRuns: number): fc.Parameters<unknown> {
  return {
    numRuns,
    reporter(details) {
      if (!details.failed) return;
      const example = JSON.stringify(details.counterexample) ?? String(details.counterexample);
      const cause = details.errorInstance instanceof Error ? details.errorInstance.message : '';
      throw new Error(
        `Property failed after ${details.numRuns} runs (seed ${details.seed}, path "${details.counterexamplePath}")\n` +
          `Counterexample: ${example.length > 600 ? `${example.slice(0, 600)}... (${example.length} characters)` : example}\n` +
          `Cause: ${cause.slice(0, 2000)}`,
      );
    },
  };
}

/** The JSON-schema subset route bodies use. */
interface BodySchema {
  type?: string;
  enum?: readonly unknown[];
  properties?: Record<string, BodySchema>;
  required?: readonly string[];
  additionalProperties?: boolean | BodySchema;
  items?: BodySchema;
  anyOf?: readonly BodySchema[];
  minimum?: number;
  maximum?: number;
}

/** Marks where a deep value goes: JSON.stringify cannot write one that deep itself. */
const DEEP = '\u0000deep:';

/** A value the schema accepts: its enums, bounds and required members; optional ones often. */
function conforming(schema: BodySchema, depth: number): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => conforming(s, depth)));
  switch (schema.type) {
    case 'string':
      return fc.oneof(fc.constantFrom('x', 'ItemA', 'user'), trickyText);
    case 'integer':
      return fc.integer({ min: schema.minimum ?? 1, max: schema.maximum ?? 1000 });
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(conforming(schema.items ?? {}, depth + 1), { minLength: 1, maxLength: 3 });
    case 'object': {
      const properties = Object.entries(schema.properties ?? {});
      const shape = Object.fromEntries(
        properties.map(([name, s]) => [name, conforming(s, depth + 1)]),
      );
      return fc.record(shape, { requiredKeys: (schema.required ?? []).filter((n) => n in shape) });
    }
    default:
      return depth > 3 ? fc.constant(1) : fc.jsonValue({ maxDepth: 2 });
  }
}

/** Places a value can go: members of objects (also a new one where the schema is open) and items. */
function slots(value: unknown, schema: BodySchema): Array<(poison: unknown) => void> {
  const found: Array<(poison: unknown) => void> = [];
  const walk = (node: unknown, s: BodySchema) => {
    if (Array.isArray(node)) {
      node.forEach((item, i) => {
        found.push((poison) => {
          node[i] = poison;
        });
        walk(item, s.items ?? {});
      });
    } else if (typeof node === 'object' && node !== null) {
      const record = node as Record<string, unknown>;
      for (const [key, child] of Object.entries(record)) {
        found.push((poison) => {
          record[key] = poison;
        });
        walk(child, s.properties?.[key] ?? {});
      }
      if (s.type === 'object' && s.additionalProperties !== false) {
        found.push((poison) => {
          record.poisoned = poison;
        });
      }
    }
  };
  walk(value, schema);
  return found;
}

/** What goes into one slot: a value far too deep (most often), or one of any other shape. */
const poison = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 60, max: 20_000 }).map((n) => `${DEEP}${n}`) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

/**
 * JSON bodies shaped by a route's own body schema, so they get past its validation to the
 * code behind it, with poison in exactly one place: a value thousands of levels deep, or one of
 * another shape.
 */
export function schemaShapedBody(schema: BodySchema): fc.Arbitrary<string> {
  return fc.tuple(conforming(schema, 0), fc.nat(), poison).map(([value, pick, bad]) => {
    const places = slots(value, schema);
    if (places.length > 0) places[pick % places.length]!(bad);
    return JSON.stringify(value).replace(/"\\u0000deep:(\d+)"/g, (_match, levels: string) =>
      nestedJson(Number(levels), '{"d":', '}'),
    );
  });
}
