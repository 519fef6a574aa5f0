export { buildApp, SERVICE_PREFIXES } from './app.js';
export { DEFAULT_LIMITS, type MockServerLimits } from './config/limits.js';
export type { MockServerOptions, ResolvedOptions } from './config/options.js';
export { ApiError, type ApiErrorBody } from './http/api-error.js';
export type { Clock } from './plugins/clock.js';
export {
  type RunningServer,
  type ServerInfo,
  type StartServerOptions,
  startServer,
} from './server.js';
