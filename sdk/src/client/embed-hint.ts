import type { LicensingService } from '../types.js';

/**
 * The instruction ending a chain refusal of `service`'s signing key: the command that embeds the
 * service's current root.
 *
 * @example
 * embedHint('main', { mainUrl, standbyUrl }); // "Embed the main service's current root ...: npx ..."
 */
export function embedHint(
  service: LicensingService,
  urls: { mainUrl: string; standbyUrl: string },
): string {
  const command =
    service === 'standby'
      ? `npx standby-licensing embed-root --standby-url ${urls.standbyUrl} --id-token <a user's ID token> --out <your roots module>`
      : `npx standby-licensing embed-root --jwks-url ${urls.mainUrl}/.well-known/jwks.json --out <your roots module>`;
  return `Embed the ${service} service's current root and ship it with the app: ${command}`;
}
