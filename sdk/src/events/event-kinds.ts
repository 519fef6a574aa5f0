import type { EventTimestamp } from './timestamp.js';

/**
 * Fields every event read from a feed has. `eventReceived` is exact: it is parsed from the
 * server's `eventReceived_str`, never from the JSON number. Any other root field passes through.
 */
export interface EventBase {
  /** The kind of event. */
  eventType: string;
  /** The system that produced the event. */
  eventSourceId: string;
  /** Unique id (UUID) of the event. */
  eventId: string;
  /** When the service received the event: nanoseconds since the epoch, exact. */
  eventReceived: EventTimestamp;
  /** The same timestamp as decimal text: save it as a cursor. */
  eventReceived_str: string;
  /** Id of a related object, when the event names one. */
  eventObjectId?: string;
  /** Type of a related object, when the event names one. */
  eventObjectType?: string;
  /**
   * The event data (the protocol recommends one `data` field for it:
   * https://github.com/standby-licensing/standby-licensing/blob/main/docs/protocol.md#events).
   */
  data?: unknown;
  [field: string]: unknown;
}

/** Data fields of an event kind: the named ones typed, anything else passed through. */
type EventData<Fields> = Fields & { [field: string]: unknown };

/** An event of a known kind: its `eventType` literal and its `data` shape. */
interface KnownEvent<Type extends string, Fields = Record<never, never>> extends EventBase {
  eventType: Type;
  data?: EventData<Fields>;
}

/** Fields of audit events (audit events carry these; null fields are omitted). */
export interface AuditEventFields {
  /** Fields the operation changed. */
  modifiedFields?: Record<string, unknown>;
  /** Values before the operation. For a deleted UserSession only `id`. */
  oldFields?: Record<string, unknown>;
  /** The user who made the change. */
  userId?: string;
}

/** A license was provisioned (`eventObjectType` `license`, `eventObjectId` its id). */
export type LicenseProvisionedEvent = KnownEvent<
  'LicenseProvisioned',
  { licensedItemName?: string; activationCode?: string; licenseId?: string; userId?: string }
>;
/** A license was revoked (`eventObjectType` `license`, `eventObjectId` its id). */
export type LicenseRevokedEvent = KnownEvent<
  'LicenseRevoked',
  { licensedItemName?: string; licenseId?: string; userId?: string }
>;
/** An organization invitation was declined. */
export type OrganizationInvitationDeclinedEvent = KnownEvent<
  'OrganizationInvitationDeclined',
  { organizationId?: string }
>;
/** A user began activating a credential (password reset, account activation). */
export type CredentialActivationStartedEvent = KnownEvent<'CredentialActivationStarted'>;
/** Credential activation completed (also sent with UserPasswordChanged). */
export type CredentialActivatedEvent = KnownEvent<'CredentialActivated'>;
/** A credential was deactivated (for example 2FA or a passkey). */
export type CredentialDeactivatedEvent = KnownEvent<'CredentialDeactivated'>;
/** A user's password changed (also triggers CredentialActivated). */
export type UserPasswordChangedEvent = KnownEvent<'UserPasswordChanged'>;
/** An activation code was blocked for provisioning. */
export type ActivationCodeBlockedEvent = KnownEvent<
  'ActivationCodeBlocked',
  { activationCode?: string }
>;
/** An activation code was unblocked for provisioning. */
export type ActivationCodeUnblockedEvent = KnownEvent<
  'ActivationCodeUnblocked',
  { activationCode?: string }
>;
/** A user was added to an organization group. */
export type UserAddedToOrganizationGroupEvent = KnownEvent<'UserAddedToOrganizationGroup'>;
/** A user was removed from an organization group. */
export type UserRemovedFromOrganizationGroupEvent = KnownEvent<'UserRemovedFromOrganizationGroup'>;
/** A user was given an organization role. */
export type UserAddedToOrganizationRoleEvent = KnownEvent<'UserAddedToOrganizationRole'>;
/** A user lost an organization role. */
export type UserRemovedFromOrganizationRoleEvent = KnownEvent<'UserRemovedFromOrganizationRole'>;
/** Audit: an object was deleted. */
export type DeletedEvent = KnownEvent<'Deleted', AuditEventFields>;
/** @deprecated Since 6.0.0; sent only when turned on by configuration. */
export type ForgotPasswordEmailSentEvent = KnownEvent<'ForgotPasswordEmailSent'>;
/** @deprecated Since 6.0.0; sent only when turned on by configuration. */
export type ForgotPasswordResetEvent = KnownEvent<'ForgotPasswordReset'>;
/** @deprecated Since 6.0.0; sent only when turned on by configuration. */
export type UserPasswordCreatedEvent = KnownEvent<'UserPasswordCreated'>;
/** @deprecated Since 6.0.0; sent only when turned on by configuration. */
export type UserMfaActivatedEvent = KnownEvent<'UserMfaActivated'>;
/** @deprecated Since 6.0.0; sent only when turned on by configuration. */
export type UserMfaDeactivatedEvent = KnownEvent<'UserMfaDeactivated'>;

/**
 * `data` of the standby's lease events (DECISIONS "Outage usage"): the lease, the request's
 * device and app, and how the caller authenticated. For a release, `licenseId`,
 * `licensedItemName`, `iat` and `exp` are those of the released lease, present when the standby
 * knows it.
 */
export interface StandbyLeaseEventData {
  leaseId?: string;
  licenseId?: string;
  licensedItemName?: string;
  /** The lease's `iat`, seconds since the epoch. */
  iat?: number;
  /** The lease's `exp`, seconds since the epoch. */
  exp?: number;
  hw?: string;
  hwName?: string;
  process?: string;
  version?: string;
  /** The ID token's `email`, when it has one. */
  email?: string;
  authorization?: 'IdToken' | 'ServiceKeyHash';
  /** How far past its `exp` the caller's ID token was, in seconds (0 inside it; at most 86 400). */
  idTokenGraceSeconds?: number;
}
/**
 * The standby granted a lease (`eventSourceId` `standby`, `eventObjectType` `consumer`,
 * `eventObjectId` the caller's `sub` or `service-key-<16 hex>`).
 */
export type StandbyLeaseGrantedEvent = KnownEvent<'StandbyLeaseGranted', StandbyLeaseEventData>;
/** The standby renewed a lease (its own or main's); the same object as a grant. */
export type StandbyLeaseRenewedEvent = KnownEvent<'StandbyLeaseRenewed', StandbyLeaseEventData>;
/** The standby was asked to release a lease; the same object as a grant. */
export type StandbyLeaseReleasedEvent = KnownEvent<'StandbyLeaseReleased', StandbyLeaseEventData>;

/**
 * Every event kind the event service's specification names, and the standby's lease events, as a
 * union on `eventType`.
 */
export type KnownLicensingEvent =
  | LicenseProvisionedEvent
  | LicenseRevokedEvent
  | OrganizationInvitationDeclinedEvent
  | CredentialActivationStartedEvent
  | CredentialActivatedEvent
  | CredentialDeactivatedEvent
  | UserPasswordChangedEvent
  | ActivationCodeBlockedEvent
  | ActivationCodeUnblockedEvent
  | UserAddedToOrganizationGroupEvent
  | UserRemovedFromOrganizationGroupEvent
  | UserAddedToOrganizationRoleEvent
  | UserRemovedFromOrganizationRoleEvent
  | DeletedEvent
  | ForgotPasswordEmailSentEvent
  | ForgotPasswordResetEvent
  | UserPasswordCreatedEvent
  | UserMfaActivatedEvent
  | UserMfaDeactivatedEvent
  | StandbyLeaseGrantedEvent
  | StandbyLeaseRenewedEvent
  | StandbyLeaseReleasedEvent;

/** The `eventType` values of {@link KnownLicensingEvent}. */
export type KnownEventType = KnownLicensingEvent['eventType'];

/** An event of any other kind (your own systems' events included), passed through as is. */
export interface GenericEvent extends EventBase {}

/**
 * What feeds yield: a known kind or a {@link GenericEvent}. Because unknown kinds pass through,
 * `event.eventType === 'LicenseRevoked'` alone does not narrow `data`: use {@link isEventOfType}.
 */
export type FeedEvent = KnownLicensingEvent | GenericEvent;

/** The event type for an `eventType` value. */
export type EventOfType<Type extends KnownEventType> = Extract<
  KnownLicensingEvent,
  { eventType: Type }
>;

/**
 * Narrows an event to a known kind by its `eventType`. It checks only `eventType`: the payload
 * fields are typed as the event service's specification names them, all optional.
 *
 * @example
 * for await (const event of events.read('licensing', { limit: 100 })) {
 *   if (isEventOfType(event, 'LicenseRevoked')) console.log(event.data?.licensedItemName);
 * }
 */
export function isEventOfType<Type extends KnownEventType>(
  event: { eventType: unknown },
  type: Type,
): event is EventOfType<Type> {
  return event.eventType === type;
}
