// Every default of the SDK, in one place (durations in ms).

/** The spec's ID-token grace on the standby: 24 hours, in ms. `auth.graceMs` may not exceed it. */
export const MAX_GRACE_MS = 86_400_000;

/**
 * Every default of the SDK, in one place (durations in ms): the licensing client (`failover`,
 * `auth`, `trust`, `names`), the release on quitting (`close`: `client.close({ release: true })`,
 * `releaseOnExit`), its lease keeper (`keeper`, the options of `keepAlive`), the event client
 * (`events`) and its follower (`follow`).
 */
export const DEFAULTS = Object.freeze({
  failover: Object.freeze({
    strategy: 'A' as 'A' | 'B',
    mainAttempts: 2,
    attemptTimeoutMs: 5_000,
    backoffBaseMs: 250,
    backoffMaxMs: 5_000,
    retryAfterMaxMs: 10_000,
    probeIntervalMs: 30_000,
    probeMaxIntervalMs: 300_000,
    probeJitterRatio: 0.5,
    breaker: Object.freeze({
      failureThreshold: 2,
      halfOpenAfterMs: 30_000,
      halfOpenMaxMs: 300_000,
    }),
  }),
  auth: Object.freeze({
    graceMs: MAX_GRACE_MS,
    refreshSkewMs: 30_000,
    providerTimeoutMs: 10_000,
    providerRetryMs: 30_000,
  }),
  trust: Object.freeze({
    clockToleranceMs: 60_000,
    unknownKidCooldownMs: 30_000,
  }),
  close: Object.freeze({
    timeoutMs: 2_000,
  }),
  keeper: Object.freeze({
    jitterRatio: 0.1,
    retryBaseMs: 1_000,
    retryMaxMs: 60_000,
    releaseOnClose: true,
  }),
  names: Object.freeze({
    signingKeyIdHeader: 'Service-SigningKeyId',
    idTokenScheme: 'IdToken',
    serviceKeyHashScheme: 'ServiceKeyHash',
  }),
  events: Object.freeze({
    pageSize: 1_000,
    timeoutMs: 30_000,
  }),
  follow: Object.freeze({
    maxWaitMs: 30_000,
    minWaitMs: 0,
    retryDelayMs: 1_000,
    maxRetryDelayMs: 30_000,
    minPollIntervalMs: 1_000,
  }),
});
