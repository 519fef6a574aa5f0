// Node-only parts of the SDK (file stores), kept out of the runtime-agnostic main entry.
export { createFileIdTokenStore } from './node/file-id-token-store.js';
export { createFileLeaseStore } from './node/file-lease-store.js';
