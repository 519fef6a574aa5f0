import { eventChecks } from './event-checks.js';
import type { Check } from './runner.js';
import { standbyChecks } from './standby-checks.js';
import { usageChecks } from './usage-checks.js';

/**
 * Every check of the suite, in run order: the standby's, its usage events (which need the event
 * service too), then the event service's.
 */
export const allChecks: readonly Check[] = [...standbyChecks, ...usageChecks, ...eventChecks];
