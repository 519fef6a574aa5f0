/**
 * react-to-revocation.ts: an app that stops using a license the moment it is revoked.
 *
 * What it does:
 *   The app checks out its licensed feature from the main service, then follows its license's
 *   own event feed (`license/<licenseId>`) with the SDK's event client. When `LicenseRevoked`
 *   arrives, it releases the lease and turns the feature off at once: it does not wait for the
 *   lease to expire (up to 8 h), nor for a renewal to be refused. That matters most during a main
 *   outage, when renewals come from the standby, which has no catalogue and keeps granting; the
 *   event still reaches the app, because the main service writes it to the event service as soon
 *   as the revocation is stored. Finally it checks out again and sees main deny the item.
 *
 * Steps:
 *   0. Check that main grants the item only under a license: a user without one is denied.
 *   1. Sign in (the mock's identity provider stands in for the app's OIDC sign-in).
 *   2. Provision: the vendor's back office gives the user a license of the item. Here the mock's
 *      admin API stands in for it (`POST /admin/main/licenses`); pass LICENSE_PROVISION=0 when
 *      the license exists already.
 *   3. Check out the item: the lease's `licenseId` (`lic`) is the license's id.
 *   4. Follow `{ objectType: 'license', objectId: licenseId }` with `follow()`; a read token with
 *      the claim `license/<licenseId>` authorizes it (minted by the mock's issuer here; a real
 *      app gets it from its back end).
 *   5. On `LicenseRevoked`: release the lease, turn the feature off, stop following.
 *   6. Check out once more: main answers `noLicenseFound` for the item.
 *
 * Needs:
 *   - A mock server with the admin API on and a catalogue that does NOT list the item (`Pro`):
 *       npm run -s mock-server -- --state active --admin --items ItemA,ItemB
 *     Without --items the mock main grants every item from its catalogue, license or not, so after
 *     the revocation it grants the item again: the app checks this first and stops, saying so.
 *     (The walkthrough's mock, started with --data-dir and the same flags plus --items, does.)
 *   - Run from the repo root after `npm install`: `npx tsx examples/react-to-revocation.ts`,
 *     then revoke the license it prints, from a third terminal or the QA console's Licenses card:
 *       curl -X DELETE http://127.0.0.1:8787/admin/main/licenses/<licenseId>
 *     No prior step (no embedded roots: see Assumptions).
 *
 * Assumptions:
 *   - Environment (all optional): MAIN_URL, STANDBY_URL, EVENT_URL, IDP_URL, ADMIN_URL (defaults:
 *     the mock on port 8787), LICENSED_ITEM (default `Pro`), LICENSE_USER (default
 *     `revocation-demo-user`), LICENSE_PROVISION (`0` to skip step 2).
 *   - The app trusts main's root as read from main's JWKS (trust on first use: DEMO ONLY). A
 *     shipped app embeds the main and standby roots (`standby-licensing embed-root`).
 */

import { pathToFileURL } from 'node:url';
import {
  createEventClient,
  createLicensingClient,
  isEventOfType,
  isLicensingError,
  type Lease,
} from '@standby-licensing/sdk';

/** Options of {@link main}; each defaults to its environment variable, then to the local mock. */
export interface RevocationOptions {
  mainUrl?: string;
  standbyUrl?: string;
  eventUrl?: string;
  idpUrl?: string;
  /** Base URL of the mock's admin API (provisioning). Env ADMIN_URL. */
  adminUrl?: string;
  /** The licensed item. Env LICENSED_ITEM. Default `'Pro'`. */
  item?: string;
  /** The user (ID token `sub`). Env LICENSE_USER. Default `'revocation-demo-user'`. */
  user?: string;
  /** Provision the license first (step 2). Env LICENSE_PROVISION (`0`: no). Default true. */
  provision?: boolean;
  /** Called once the app follows its license feed: the moment to revoke it. */
  onFollowing?: (licenseId: string) => Promise<void> | void;
  /** Stops waiting for the revocation; {@link main} then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Where the app prints. Default `console.log`. */
  log?: (line: string) => void;
}

/** What the app saw. */
export interface RevocationReport {
  licenseId: string;
  /** The lease the app held, and released on the revocation. */
  lease: Lease;
  /** Event types read from the license's feed, in order, up to the revocation. */
  events: string[];
  /** Whether the feature was on after the checkout and off after the revocation. */
  featureTimeline: boolean[];
  /** What main answered for the item after the revocation (a denial code), or `granted`. */
  afterRevocation: string;
}

const env = (name: string, fallback: string) => process.env[name] || fallback;

/** Runs the app until its license is revoked; resolves with what it saw. */
export async function main(options: RevocationOptions = {}): Promise<RevocationReport> {
  const mainUrl = options.mainUrl ?? env('MAIN_URL', 'http://127.0.0.1:8787/main');
  const standbyUrl = options.standbyUrl ?? env('STANDBY_URL', 'http://127.0.0.1:8787/standby');
  const eventUrl = options.eventUrl ?? env('EVENT_URL', 'http://127.0.0.1:8787/events');
  const idpUrl = options.idpUrl ?? env('IDP_URL', 'http://127.0.0.1:8787/idp');
  const adminUrl = options.adminUrl ?? env('ADMIN_URL', 'http://127.0.0.1:8787/admin');
  const item = options.item ?? env('LICENSED_ITEM', 'Pro');
  const user = options.user ?? env('LICENSE_USER', 'revocation-demo-user');
  const provision = options.provision ?? process.env.LICENSE_PROVISION !== '0';
  const log = options.log ?? ((line: string) => console.log(line));

  // 0. The demo needs main to grant the item only under a license (see Needs).
  const mainRoot = await readMainRoot(mainUrl);
  await requireItemOutsideCatalogue({ mainUrl, standbyUrl, idpUrl, root: mainRoot }, item);

  // 1. Sign in.
  const idToken = await mint(idpUrl, { sub: user, expiresInSeconds: 3_600 });

  // 2. The back office provisions the license (the mock's admin API here).
  if (provision) {
    const license = await provisionLicense(adminUrl, user, item);
    log(`provisioned ${item} for ${user}: license ${license}`);
  }

  // 3. Check out the feature.
  const client = createLicensingClient({
    mainUrl,
    standbyUrl,
    auth: { idToken: () => idToken },
    trust: { rootCertificates: [{ pem: mainRoot }] },
    hardwareId: 'revocation-demo-laptop',
  });
  const featureTimeline: boolean[] = [];
  try {
    const { leases, denied } = await client.checkout([item]);
    const lease = leases[0];
    if (!lease) {
      throw new Error(`${item} was denied (${denied[0]?.code}): is it provisioned for ${user}?`);
    }
    let featureOn = true;
    featureTimeline.push(featureOn);
    const { licenseId } = lease;
    log(`checked out ${item} from ${lease.servedBy}: lease ${lease.leaseId}, license ${licenseId}`);

    // 4. Follow the license's own feed. The read token claims only this feed.
    const feedClaim = `license/${licenseId}`;
    let readToken: Promise<string> | undefined;
    const events = createEventClient({
      eventUrl,
      auth: {
        token: () => (readToken ??= mint(idpUrl, { sub: user, claims: { [feedClaim]: true } })),
      },
    });
    const seen: string[] = [];
    const following = new AbortController();
    const stop = () => following.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', stop, { once: true });
    log(`following ${feedClaim}; revoke it to see the app react:`);
    log(`  curl -X DELETE ${adminUrl}/main/licenses/${licenseId}`);
    // A failing hook stops the follower with its error instead of leaving it waiting.
    void Promise.resolve()
      .then(() => options.onFollowing?.(licenseId))
      .catch((error: unknown) => following.abort(error));
    try {
      for await (const event of events.follow(
        { objectType: 'license', objectId: licenseId },
        { signal: following.signal, maxWaitMs: 20_000 },
      )) {
        seen.push(event.eventType);
        log(`event ${event.eventType} (${event.eventReceived_str})`);
        // 5. Revoked: release the lease and stop using the feature, now.
        if (isEventOfType(event, 'LicenseRevoked')) {
          await client.release(lease);
          featureOn = false;
          featureTimeline.push(featureOn);
          log(`license ${licenseId} revoked: lease released, ${item} turned off`);
          break;
        }
      }
    } finally {
      options.signal?.removeEventListener('abort', stop);
    }

    // 6. Main no longer grants the item.
    const again = await client.checkout([item]);
    const afterRevocation = again.denied[0]?.code ?? 'granted';
    log(`checking out ${item} again: ${afterRevocation}`);
    for (const extra of again.leases) await client.release(extra);
    return { licenseId, lease, events: seen, featureTimeline, afterRevocation };
  } finally {
    await client.close();
  }
}

/** A token from the mock's identity provider (an ID token, or a read token with `claims`). */
async function mint(idpUrl: string, body: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${idpUrl}/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`POST ${idpUrl}/token: HTTP ${response.status}`);
  return ((await response.json()) as { id_token: string }).id_token;
}

/** Provisions a license through the mock's admin API; resolves with its id. */
async function provisionLicense(adminUrl: string, sub: string, item: string): Promise<string> {
  const response = await fetch(`${adminUrl}/main/licenses`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ sub, item }),
  });
  if (!response.ok) {
    throw new Error(
      `POST ${adminUrl}/main/licenses: HTTP ${response.status} (is the mock started with --admin?)`,
    );
  }
  return ((await response.json()) as { licenseId: string }).licenseId;
}

/**
 * DEMO ONLY. Stops, saying what to do, when main grants `item` to a user who holds no license
 * for it: its catalogue lists the item (a mock started without `--items` lists every item), so
 * main would grant it again after the revocation, and the demo would show nothing.
 */
async function requireItemOutsideCatalogue(
  options: { mainUrl: string; standbyUrl: string; idpUrl: string; root: string },
  item: string,
): Promise<void> {
  const probeUser = `catalogue-probe-${crypto.randomUUID()}`;
  const idToken = await mint(options.idpUrl, { sub: probeUser, expiresInSeconds: 300 });
  const probe = createLicensingClient({
    mainUrl: options.mainUrl,
    standbyUrl: options.standbyUrl,
    auth: { idToken: () => idToken },
    trust: { rootCertificates: [{ pem: options.root }] },
  });
  try {
    const { leases } = await probe.checkout([item]);
    for (const lease of leases) await probe.release(lease);
    if (leases.length > 0) {
      throw new Error(
        `main grants ${item} to a user without a license: its catalogue lists ${item}, so it would grant it again after the revocation. Start the mock with a catalogue that does not list ${item}: npm run -s mock-server -- --state active --admin --items ItemA,ItemB (without --items the mock main grants every item).`,
      );
    }
  } finally {
    await probe.close();
  }
}

/** Main's root certificate, the last `x5c` entry of its JWKS (trust on first use: DEMO ONLY). */
async function readMainRoot(mainUrl: string): Promise<string> {
  const response = await fetch(`${mainUrl}/.well-known/jwks.json`);
  if (!response.ok)
    throw new Error(`GET ${mainUrl}/.well-known/jwks.json: HTTP ${response.status}`);
  const { keys } = (await response.json()) as { keys: Array<{ x5c?: string[] }> };
  const der = keys[0]?.x5c?.at(-1);
  if (!der) throw new Error('main JWKS has no x5c chain');
  return `-----BEGIN CERTIFICATE-----\n${der.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort(new Error('stopped before the revocation')));
  main({ signal: stop.signal }).then(
    (report) => console.log(`done: ${report.events.join(' -> ')}`),
    (error: unknown) => {
      // The example's own errors say what to do in their message; print just that.
      if (isLicensingError(error)) console.error(`${error.code}: ${error.message}`);
      else console.error(error instanceof Error ? error.message : error);
      process.exitCode = 1;
    },
  );
}
