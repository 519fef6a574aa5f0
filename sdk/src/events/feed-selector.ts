import { LicensingError } from '../errors.js';

/**
 * Which feed to read: events of one source system (`'billing'` or `{ source: 'billing' }`) or
 * events related to one object (`{ objectType: 'License', objectId: 'L1' }`). No part may contain
 * a forward slash.
 */
export type FeedSelector = string | { source: string } | { objectType: string; objectId: string };

/** A validated feed: its name (the read JWT's claim) and its URL path below `/get/`. */
export interface ResolvedFeed {
  /** `<source>` or `<objectType>/<objectId>`, as the read JWT's claim names it. */
  name: string;
  /** The same, percent-encoded for the URL. */
  path: string;
}

/** Validates a {@link FeedSelector}. Throws LicensingError `INVALID_ARGUMENT`. */
export function resolveFeed(feed: FeedSelector): ResolvedFeed {
  if (typeof feed === 'string') return single(checkPart(feed, 'feed'));
  if (typeof feed === 'object' && feed !== null) {
    if ('source' in feed) return single(checkPart(feed.source, 'feed.source'));
    if ('objectType' in feed && 'objectId' in feed) {
      const type = checkPart(feed.objectType, 'feed.objectType');
      const id = checkPart(feed.objectId, 'feed.objectId');
      return {
        name: `${type}/${id}`,
        path: `${encodeURIComponent(type)}/${encodeURIComponent(id)}`,
      };
    }
  }
  throw new LicensingError(
    'INVALID_ARGUMENT',
    'feed is not a source id, { source } or { objectType, objectId }. Pass one of these.',
  );
}

function single(name: string): ResolvedFeed {
  return { name, path: encodeURIComponent(name) };
}

function checkPart(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new LicensingError(
      'INVALID_ARGUMENT',
      `${name} is not a non-empty string. Pass a non-empty ${name}.`,
    );
  }
  if (value.includes('/')) {
    throw new LicensingError(
      'INVALID_ARGUMENT',
      `${name} contains a forward slash, which feed names cannot hold. Pass it without one.`,
    );
  }
  return value;
}
