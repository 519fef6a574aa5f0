// The browser's stand-in for licensing-telemetry.ts: package.json's `browser` field maps that
// module to this one, so a browser bundle (esbuild, webpack, Vite, Rollup, Parcel all read the
// field) carries none of the telemetry code. Browsers have no `node:diagnostics_channel`, where
// the real module would find nothing to publish on anyway and return undefined too.
import type { createLicensingTelemetry as withChannels } from './licensing-telemetry.js';

/** No telemetry: the client runs its operations as they are (browser bundles). */
export const createLicensingTelemetry: typeof withChannels = () => undefined;
