import { randomUUID } from 'node:crypto';
import type { OutboxEvent } from '../store/outbox.js';

/**
 * `eventSourceId` of every event the mock main writes (docs/protocol.md "Event kinds of the main
 * service").
 */
export const MAIN_EVENT_SOURCE = 'main';

/** An event the main service owes the event service: complete, with its own `eventId`. */
export interface MainEvent extends OutboxEvent {
  eventSourceId: typeof MAIN_EVENT_SOURCE;
  eventObjectType: 'license' | 'activationCode';
}

/** A license provisioned for one user and one item. */
export interface License {
  licenseId: string;
  /** The user (`sub` of their ID token) it is provisioned for. */
  sub: string;
  /** The licensed item it grants. */
  item: string;
  activationCode: string;
  /** When it was provisioned, ISO 8601 on the server clock. */
  provisionedAt: string;
}

/** Options of the event builders: whether audit events go with the domain events. */
export interface MainEventOptions {
  /** Also write an audit event (`Created`, `Updated`, `Deleted`) per change. Default false. */
  audit?: boolean;
}

/** The fields of `fields` that are not null (audit events omit null fields). */
function withoutNulls(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null));
}

function event(
  eventType: string,
  object: Pick<MainEvent, 'eventObjectType' | 'eventObjectId'>,
  data: Record<string, unknown>,
): MainEvent {
  return {
    eventId: randomUUID(),
    eventType,
    eventSourceId: MAIN_EVENT_SOURCE,
    ...object,
    data,
  };
}

/**
 * An audit event: `modifiedFields` (the new values) and `oldFields` (the values before), both
 * without null fields, and `userId` when the change concerns a user.
 */
function auditEvent(
  eventType: 'Created' | 'Updated' | 'Deleted',
  object: Pick<MainEvent, 'eventObjectType' | 'eventObjectId'>,
  change: { modified: Record<string, unknown>; old: Record<string, unknown>; userId?: string },
): MainEvent {
  return event(eventType, object, {
    modifiedFields: withoutNulls(change.modified),
    oldFields: withoutNulls(change.old),
    ...(change.userId === undefined ? {} : { userId: change.userId }),
  });
}

/** The audit view of a license: its fields under the names the events use. */
function licenseFields(license: License): Record<string, unknown> {
  return {
    id: license.licenseId,
    userId: license.sub,
    licensedItemName: license.item,
    activationCode: license.activationCode,
    provisionedAt: license.provisionedAt,
  };
}

/**
 * Events of a provisioning: `LicenseProvisioned` on the license's feed (`data`:
 * `licensedItemName`, `activationCode`, `licenseId`, `userId`), plus an audit `Created`.
 *
 * @example
 * const events = licenseProvisionedEvents(license, { audit: false });
 */
export function licenseProvisionedEvents(
  license: License,
  options: MainEventOptions = {},
): MainEvent[] {
  const object = { eventObjectType: 'license', eventObjectId: license.licenseId } as const;
  const events = [
    event('LicenseProvisioned', object, {
      licensedItemName: license.item,
      activationCode: license.activationCode,
      licenseId: license.licenseId,
      userId: license.sub,
    }),
  ];
  if (options.audit) {
    events.push(
      auditEvent('Created', object, {
        modified: licenseFields(license),
        old: {},
        userId: license.sub,
      }),
    );
  }
  return events;
}

/**
 * Events of a revocation: `LicenseRevoked` (`data`: `licensedItemName`, `licenseId`, `userId`),
 * plus an audit `Deleted` whose `oldFields` hold the license.
 */
export function licenseRevokedEvents(
  license: License,
  options: MainEventOptions = {},
): MainEvent[] {
  const object = { eventObjectType: 'license', eventObjectId: license.licenseId } as const;
  const events = [
    event('LicenseRevoked', object, {
      licensedItemName: license.item,
      licenseId: license.licenseId,
      userId: license.sub,
    }),
  ];
  if (options.audit) {
    events.push(
      auditEvent('Deleted', object, {
        modified: {},
        old: licenseFields(license),
        userId: license.sub,
      }),
    );
  }
  return events;
}

/** What changed for an activation code: blocked now (at `blockedAt`) or unblocked. */
export interface ActivationCodeChange {
  activationCode: string;
  /** When it was blocked: the new value for a block, the old one for an unblock. */
  blockedAt: string;
  blocked: boolean;
  /** The user of a license provisioned with this code, for the audit event's `userId`. */
  userId?: string;
}

/**
 * Events of a block or unblock: `ActivationCodeBlocked` / `ActivationCodeUnblocked` on the
 * code's feed (`data`: `activationCode`), plus an audit `Updated` of its `blockedAt` (null, so
 * omitted, on the unblocked side).
 */
export function activationCodeEvents(
  change: ActivationCodeChange,
  options: MainEventOptions = {},
): MainEvent[] {
  const object = {
    eventObjectType: 'activationCode',
    eventObjectId: change.activationCode,
  } as const;
  const events = [
    event(change.blocked ? 'ActivationCodeBlocked' : 'ActivationCodeUnblocked', object, {
      activationCode: change.activationCode,
    }),
  ];
  if (options.audit) {
    const blockedAt = { blockedAt: change.blockedAt };
    const cleared = { blockedAt: null };
    events.push(
      auditEvent('Updated', object, {
        modified: change.blocked ? blockedAt : cleared,
        old: change.blocked ? cleared : blockedAt,
        ...(change.userId === undefined ? {} : { userId: change.userId }),
      }),
    );
  }
  return events;
}
