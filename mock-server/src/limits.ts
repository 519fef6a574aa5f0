import { JSON_DEPTH_CAP } from './json-depth.js';

/**
 * Limits of the mock server. Each one is a `buildApp` option (`limits.<name>`) and a
 * command-line option; every refusal is an ApiError. The table of
 * https://github.com/standby-licensing/standby-licensing/blob/main/docs/mock-server.md#limits
 * lists them with their options.
 */
export interface MockServerLimits {
  /**
   * Licensed items (or released lease ids) in one `/authz/.jwt` request; more is 400
   * `invalid_request`. Default 100. CLI `--max-items`.
   */
  maxItemsPerRequest: number;
  /**
   * Characters (Unicode code points) of an event id, source id, object type or object id, on
   * write and on read alike; longer is 400 `invalid_request`, never 414. Default 512.
   * CLI `--max-id-length`.
   */
  maxIdLength: number;
  /**
   * How deep JSON may nest: containers inside one field of an event (the event object and a
   * batch array not counted: `"data": {"d": 1}` is 1 deep), or inside any other JSON body (its
   * outermost container not counted). Deeper is 400 `invalid_request`. Default 64.
   * CLI `--max-json-depth`.
   */
  maxJsonDepth: number;
  /** Largest request body, in bytes; larger is 413 `request_too_large`. Default 1 MiB. CLI `--max-body-bytes`. */
  maxBodyBytes: number;
  /**
   * A request (headers and body) must arrive whole within this many ms, else 408
   * `request_timeout`, sent at most a sixth of this later (Node checks on an interval). A parked
   * long poll has arrived whole, so it is exempt. Default 30 000. CLI `--request-timeout-ms`.
   */
  requestTimeoutMs: number;
  /**
   * The request headers must arrive within this many ms, else 408. At most `requestTimeoutMs`.
   * Default: `requestTimeoutMs`. CLI `--headers-timeout-ms`.
   */
  headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this many ms. Default 72 000. CLI `--keep-alive-timeout-ms`. */
  keepAliveTimeoutMs: number;
  /**
   * Largest admin clock offset either way, in ms (`PUT /admin/clock`). Default ten years
   * (315 576 000 000). CLI `--max-clock-offset-ms`.
   */
  maxClockOffsetMs: number;
  /**
   * Licenses the mock main holds at once (`POST /admin/main/licenses`; more is 409
   * `too_many_licenses`), and changes whose events may wait in its outbox (more is 503
   * `outbox_full`). Default 10 000. CLI `--max-licenses`.
   */
  maxLicenses: number;
  /**
   * Standby answers whose events may wait in its outbox for the event service (held with
   * `PUT /admin/standby/outbox`, or the event log failing); one more is refused with 503
   * `outbox_full` and nothing granted. Default 100 000. CLI `--max-standby-outbox`.
   */
  maxStandbyOutbox: number;
}

/** Ten years of 365.25 days, in milliseconds. */
const TEN_YEARS_MS = 315_576_000_000;

/** The default limits (`--help` and the package README list them). */
export const DEFAULT_LIMITS: Readonly<Omit<MockServerLimits, 'headersTimeoutMs'>> = {
  maxItemsPerRequest: 100,
  maxIdLength: 512,
  maxJsonDepth: 64,
  maxBodyBytes: 1024 * 1024,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 72_000,
  maxClockOffsetMs: TEN_YEARS_MS,
  maxLicenses: 10_000,
  maxStandbyOutbox: 100_000,
};

/** Smallest and largest accepted value of each limit. */
const RANGES: Record<keyof MockServerLimits, readonly [number, number]> = {
  maxItemsPerRequest: [1, 100_000],
  maxIdLength: [1, 100_000],
  maxJsonDepth: [1, JSON_DEPTH_CAP],
  maxBodyBytes: [1024, 1024 * 1024 * 1024],
  requestTimeoutMs: [100, 3_600_000],
  headersTimeoutMs: [100, 3_600_000],
  keepAliveTimeoutMs: [100, 3_600_000],
  maxClockOffsetMs: [0, 100 * TEN_YEARS_MS],
  maxLicenses: [1, 1_000_000],
  maxStandbyOutbox: [1, 10_000_000],
};

/**
 * Applies the defaults to `given` and checks every value; throws a TypeError naming the limit.
 *
 * @example
 * resolveLimits({ requestTimeoutMs: 500 }); // headersTimeoutMs follows: 500
 */
export function resolveLimits(given: Partial<MockServerLimits> = {}): Readonly<MockServerLimits> {
  for (const name of Object.keys(given)) {
    if (!(name in RANGES)) throw new TypeError(`Unknown limit: ${name}`);
  }
  const requestTimeoutMs = given.requestTimeoutMs ?? DEFAULT_LIMITS.requestTimeoutMs;
  const limits: MockServerLimits = {
    ...DEFAULT_LIMITS,
    headersTimeoutMs: requestTimeoutMs,
    ...given,
  };
  for (const [name, [min, max]] of Object.entries(RANGES)) {
    const value = limits[name as keyof MockServerLimits];
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      throw new TypeError(`limits.${name} must be an integer from ${min} to ${max}`);
    }
  }
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new TypeError('limits.headersTimeoutMs must not exceed limits.requestTimeoutMs');
  }
  return Object.freeze(limits);
}

/** Length of `text` in Unicode code points, as JSON Schema's `maxLength` counts it. */
export function codePointLength(text: string): number {
  let length = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length--;
        i++;
      }
    }
  }
  return length;
}
