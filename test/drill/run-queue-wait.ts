// How long a process's main thread waited for a CPU: tells a starved harness (other work on the
// machine) from a busy one.
import { readFileSync } from 'node:fs';

/**
 * Time the main thread of process `pid` (default: this one) has spent runnable but waiting for a
 * CPU since it started, in ms: the second field of Linux's `/proc/<pid>/schedstat` (ns).
 * `undefined` where that file does not exist (not Linux, no schedstats).
 *
 * @example
 * const before = readRunQueueWaitMs();
 * // ... one second later
 * const waitedMs = (readRunQueueWaitMs() ?? 0) - (before ?? 0);
 */
export function readRunQueueWaitMs(pid?: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid ?? 'self'}/schedstat`, 'utf8')
      .trim()
      .split(/\s+/);
    const waitedNs = Number(fields[1]);
    return Number.isFinite(waitedNs) ? waitedNs / 1e6 : undefined;
  } catch {
    return undefined;
  }
}
