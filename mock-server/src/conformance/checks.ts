import { eventChecks } from './event-checks.js';
import type { Check } from './runner.js';
import { standbyChecks } from './standby-checks.js';

/** Every check of the suite, in run order: the standby's, then the event service's. */
export const allChecks: readonly Check[] = [...standbyChecks, ...eventChecks];
