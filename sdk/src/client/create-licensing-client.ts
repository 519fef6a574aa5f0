import { createIdTokenSource } from '../auth/id-token-source.js';
import { computeServiceKeyHash } from '../auth/service-key-hash.js';
import { createLeaseVerifier } from '../lease/lease-verifier.js';
import { type LicensingClientOptions, resolveLicensingClientOptions } from '../options.js';
import {
  buildLicensingClient,
  type LicensingClient,
  type LicensingClientParts,
} from './build-licensing-client.js';

/**
 * Creates a licensing client: checkout, renewal and release of leases on the main licensing
 * service with failover to the standby service (Strategy A or B), every lease verified against
 * the root certificates embedded in the app.
 *
 * @param options Validated once; an unknown or malformed option throws a `TypeError` naming it.
 *   See {@link LicensingClientOptions} for every option with its unit and default.
 * @returns A {@link LicensingClient}. Call `close()` when done.
 * @throws TypeError for a bad option.
 *
 * @example
 * ```ts
 * import { createLicensingClient } from '@standby-licensing/sdk';
 * import { ROOT_PEM } from './embedded-root.js'; // the standby root, compiled into the app
 *
 * const client = createLicensingClient({
 *   mainUrl: 'http://127.0.0.1:8787/main',
 *   standbyUrl: 'http://127.0.0.1:8787/standby',
 *   auth: { idToken: () => oidc.getIdToken() },
 *   failover: { strategy: 'B', mainAttempts: 2 },
 *   trust: { rootCertificates: [{ pem: ROOT_PEM, keyId: 'standby-key-1' }] },
 *   hardwareId: 'workstation-42',
 *   version: '3.1.0',
 *   on: { failover: (e) => console.warn('licensing on standby', e.cause) },
 * });
 * const { leases, denied } = await client.checkout(['ItemA']);
 * const keeper = client.keepAlive(leases); // renews at `refreshAt`, through failover
 * // ... later
 * await client.close(); // releases the kept leases
 * ```
 */
export function createLicensingClient(options: LicensingClientOptions): LicensingClient {
  const resolved = resolveLicensingClientOptions(options);
  const { auth } = resolved;
  const parts: LicensingClientParts = {
    createVerifier: (loadJwks, events) =>
      createLeaseVerifier({
        roots: resolved.trust.rootCertificates,
        loadJwks,
        now: resolved.now,
        ...(resolved.trust.clockToleranceMs === undefined
          ? {}
          : { clockToleranceMs: resolved.trust.clockToleranceMs }),
        onRootExpiring: (info) => events.emit('rootExpiring', info),
      }),
  };
  if (auth.kind === 'idToken') {
    parts.idTokens = createIdTokenSource({
      provider: auth.provider,
      now: resolved.now,
      ...(auth.store ? { store: auth.store } : {}),
      ...(auth.graceMs === undefined ? {} : { graceMs: auth.graceMs }),
      ...(auth.providerTimeoutMs === undefined
        ? {}
        : { providerTimeoutMs: auth.providerTimeoutMs }),
      ...(auth.providerRetryMs === undefined ? {} : { providerRetryMs: auth.providerRetryMs }),
    });
  } else if (auth.kind === 'serviceKeyHash') {
    const hash = auth.hash;
    parts.serviceKeyHash = async () => hash;
  } else {
    let hash: Promise<string> | undefined;
    const pem = auth.pem;
    parts.serviceKeyHash = () => {
      hash ??= computeServiceKeyHash(pem);
      return hash;
    };
  }
  return buildLicensingClient(resolved, parts);
}
