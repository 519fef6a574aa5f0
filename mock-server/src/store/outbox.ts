/**
 * An event a service owes the event service: complete, with the `eventId` it was given when the
 * change (or the lease answer) was made, so that delivering it twice can be told from two events.
 */
export interface OutboxEvent {
  [field: string]: unknown;
  eventId: string;
  eventType: string;
  eventSourceId: string;
  eventObjectType: string;
  eventObjectId: string;
  data: Record<string, unknown>;
}

/** The events of one committed change that the event service has not acknowledged yet. */
export interface OutboxEntry<Event extends OutboxEvent = OutboxEvent> {
  /** The change's number: increasing, never reused while the entry waits. */
  change: number;
  /** Its events, in order, each with the `eventId` it was given when the change was made. */
  events: Event[];
  /**
   * The event store's last timestamp (decimal digits) when the change was stored, if known:
   * none of its events can be in the store with a timestamp at or below it, so the delivery's
   * lookup after a crash reads only the events stored since.
   */
  storedAfter?: string;
}

/**
 * Where a service keeps the events it owes the event service until they are written there: the
 * main service's license book, the standby's outbox journal. Read by the one outbox delivery
 * (docs/decisions/0021-main-event-outbox.md, docs/decisions/0036-standby-usage-events.md).
 */
export interface Outbox {
  /** Entries waiting for the event service, oldest first (a snapshot: later entries not in it). */
  outbox(): readonly OutboxEntry[];
  /** Removes the entries up to change `upTo` (delivered); stored before it resolves. */
  acknowledge(upTo: number): Promise<void>;
}
