import type { EventIndex } from '../store/event-index.js';
import type { FeedQuery } from './feed-query.js';

/** A rendered feed page. */
export interface FeedPage {
  /** Events in the page (instructions excluded). */
  count: number;
  /** The feed body as JSON text, timestamps as exact digits. */
  body: string;
}

/** Relative path of a feed below `{event_url}/get/`, each segment URL-encoded. */
export function feedPath(feed: string): string {
  return feed.split('/').map(encodeURIComponent).join('/');
}

/** Events of `index` in the open range (`after`, `before`). */
export function countInRange(
  index: EventIndex | undefined,
  after: bigint | undefined,
  before: bigint | undefined,
): number {
  if (!index) return 0;
  const lo = after === undefined ? 0 : index.firstAfter(after);
  const hi = before === undefined ? index.size : index.firstAtOrAfter(before);
  return hi > lo ? hi - lo : 0;
}

function instruction(kind: 'older' | 'newer', url: string, count: number): string {
  return `{"eventType":"instruction","instruction":"${kind}","url":${JSON.stringify(url)},"count":${count}}`;
}

/**
 * Renders one page of a feed: `{ uri, updateUrl, count, objects }` with `objects` = [older
 * instruction, events ascending, newer instruction]. Instruction urls are relative to
 * `{event_url}/get/`: `<feed>?before=<first ts>` and `<feed>?after=<last ts>`. With no events in
 * the page they use the request's own bounds (`before`, `after`), which are exact for an empty
 * range; a missing `before` becomes one past the service's last timestamp and a missing `after`
 * becomes `before - 1` (or 0). Every instruction `count` is exact.
 *
 * @param lastTimestamp - the largest timestamp the service has handed out
 */
export function buildFeedPage(
  index: EventIndex | undefined,
  feed: string,
  query: FeedQuery,
  uri: string,
  lastTimestamp: bigint,
): FeedPage {
  const size = index?.size ?? 0;
  const lo = !index || query.after === undefined ? 0 : index.firstAfter(query.after);
  const hiRaw = !index || query.before === undefined ? size : index.firstAtOrAfter(query.before);
  const hi = Math.max(hiRaw, lo);
  const count = Math.min(hi - lo, query.maxEventCount);
  const start = query.newest ? hi - count : lo;
  const end = start + count;
  const path = feedPath(feed);

  let olderTs: bigint;
  let olderCount: number;
  let newerTs: bigint;
  let newerCount: number;
  if (count > 0 && index) {
    olderTs = index.at(start).ts;
    olderCount = start;
    newerTs = index.at(end - 1).ts;
    newerCount = size - end;
  } else {
    olderTs = query.before ?? lastTimestamp + 1n;
    olderCount = index ? index.firstAtOrAfter(olderTs) : 0;
    newerTs =
      query.after ?? (query.before !== undefined && query.before > 0n ? query.before - 1n : 0n);
    newerCount = index ? size - index.firstAfter(newerTs) : 0;
  }
  const newerUrl = `${path}?after=${newerTs}`;
  const parts: string[] = [instruction('older', `${path}?before=${olderTs}`, olderCount)];
  for (let i = start; i < end; i++) parts.push(index!.at(i).text);
  parts.push(instruction('newer', newerUrl, newerCount));
  const body = `{"uri":${JSON.stringify(uri)},"updateUrl":${JSON.stringify(newerUrl)},"count":${count},"objects":[${parts.join(',')}]}`;
  return { count, body };
}
