// Node-only parts of the SDK (file stores), kept out of the runtime-agnostic main entry.
export { createFileIdTokenStore } from './auth/file-id-token-store.js';
