// The testing kit, `@standby-licensing/sdk/testing`: fake main and standby services that sign
// real leases (`createFakeLicensing`), msw 2 handler factories that break the main licensing
// service and set the standby's state, scenario helpers for the common outage drills, and a
// request recorder. msw is an optional peer dependency; nothing here imports `msw/node`, so the
// same handlers serve `setupServer` (Node) and `setupWorker` (browsers).

export { type DelayServiceOptions, delayService } from './delay-service.js';
export {
  type FailServiceOptions,
  failService,
  type ServiceRouteOptions,
} from './fail-service.js';
export {
  CAPTIVE_PORTAL_PAGE,
  createFailureResponse,
  type Failure,
  type FailureMode,
  htmlErrorPage,
  type StatusFailure,
} from './failure.js';
export {
  createFakeLicensing,
  type FakeIdTokenOptions,
  type FakeLicensing,
  type FakeLicensingKeys,
  type FakeLicensingOptions,
  type FakeRoot,
  type FakeServiceKeys,
} from './fake-licensing.js';
export { type FlakyServiceOptions, flakyService } from './flaky-service.js';
export type { FakeJwk } from './internal/fake-pki.js';
export {
  type MainRateLimitedOptions,
  type MainServerErrorOptions,
  mainCaptivePortal,
  mainDelay,
  mainDnsFailure,
  mainFlaky,
  mainHang,
  mainRateLimited,
  mainRefused,
  mainReset,
  mainServerError,
} from './main-outages.js';
export type { PassBehaviour } from './pass.js';
export { passthroughService } from './passthrough-service.js';
export {
  createRequestRecorder,
  type RecordedRequest,
  type RecorderTarget,
  type RequestFilter,
  type RequestRecorder,
} from './request-recorder.js';
export { type ScenarioHandlersOptions, scenarioHandlers } from './scenario-handlers.js';
export { isScenarioName, type ScenarioName, scenarioNames } from './scenario-names.js';
export {
  type MainDownOptions,
  type MainFlapsOptions,
  mainDown,
  mainFlaps,
  type ScenarioOptions,
  type StandbyBehaviour,
  type StandbySwitchedOffOptions,
  standbySwitchedOffMidOutage,
} from './scenarios.js';
export {
  STANDBY_DORMANT_BODY,
  type StandbyAbsentOptions,
  type StandbyDormantOptions,
  type StandbyStateOptions,
  standbyAbsent,
  standbyDisabled,
  standbyDormant,
  standbyEnabled,
} from './standby-states.js';
