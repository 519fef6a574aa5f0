// Node-only parts of the SDK (file stores, quitting, the machine id), kept out of the
// runtime-agnostic main entry.
export { createFileIdTokenStore } from './node/file-id-token-store.js';
export { createFileLeaseStore } from './node/file-lease-store.js';
export { machineId } from './node/machine-id.js';
export { releaseOnExit } from './node/release-on-exit.js';
export type { MachineIdOptions, ReleaseOnExitOptions } from './options/app-integration.js';
