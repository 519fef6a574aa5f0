export { buildApp, SERVICE_PREFIXES } from './app.js';
export type { Clock } from './clock.js';
export { ApiError, type ApiErrorBody } from './errors.js';
export { DEFAULT_LIMITS, type MockServerLimits } from './limits.js';
export type { MockServerOptions, ResolvedOptions } from './options.js';
export {
  type RunningServer,
  type ServerInfo,
  type StartServerOptions,
  startServer,
} from './server.js';
