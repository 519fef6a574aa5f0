import { randomInt, randomUUID } from 'node:crypto';
import { ApiError } from '../errors.js';
import { createDocumentCheck } from '../store/document-check.js';
import type { Outbox, OutboxEntry as StoredOutboxEntry } from '../store/outbox.js';
import type { StateStore } from '../store/state-store.js';
import {
  activationCodeEvents,
  type License,
  licenseProvisionedEvents,
  licenseRevokedEvents,
  type MainEvent,
} from './main-events.js';

/** An activation code blocked for provisioning. */
export interface BlockedCode {
  activationCode: string;
  /** When it was blocked, ISO 8601 on the server clock. */
  blockedAt: string;
}

/** The events of one committed change that the event service has not acknowledged yet. */
export type OutboxEntry = StoredOutboxEntry<MainEvent>;

/** A license as listed: live unless its activation code is blocked. */
export interface LicenseView extends License {
  live: boolean;
}

/** What `POST /admin/main/licenses` asks for. */
export interface ProvisionRequest {
  sub: string;
  item: string;
  /** Generated when absent. */
  activationCode?: string;
}

/** Options of {@link loadLicenseBook}. */
export interface LicenseBookOptions {
  /** Server clock, ms since the epoch. */
  now: () => number;
  /** Most licenses held at once, and most changes waiting in the outbox (`maxLicenses` limit). */
  maxLicenses: number;
  /** Add an audit event to each change's events. Default false. */
  audit?: boolean;
}

/**
 * The mock main's per-user licenses, blocked activation codes and the outbox of events not yet
 * written to the event service: one document, so a change and its events are stored by the same
 * atomic write (docs/decisions/0021-main-event-outbox.md). Changes run one at a time; each is
 * stored before it takes effect or its answer is given.
 */
export interface LicenseBook extends Outbox {
  /** Provisions a license; refused with 409 when the code is blocked or taken, or at the cap. */
  provision(request: ProvisionRequest): Promise<License>;
  /** Revokes (removes) a license; resolves with it, or undefined when there is none. */
  revoke(licenseId: string): Promise<License | undefined>;
  /** Blocks a code for provisioning; resolves false when it was blocked already (no change). */
  block(activationCode: string): Promise<boolean>;
  /** Unblocks a code; resolves false when it was not blocked (no change). */
  unblock(activationCode: string): Promise<boolean>;
  /** The licenses (of `sub`, when given), oldest first. */
  list(sub?: string): LicenseView[];
  /** The blocked codes, oldest block first. */
  blockedCodes(): BlockedCode[];
  /**
   * The live license of `sub` for `item`: the one named `licenseId` when given (and it is one of
   * theirs for that item), else their oldest. Undefined when there is none.
   */
  liveLicense(sub: string, item: string, licenseId?: string): License | undefined;
  /** Entries waiting for the event service, oldest first. */
  outbox(): readonly OutboxEntry[];
  /** Removes the outbox entries up to change `upTo` (delivered); stored before it resolves. */
  acknowledge(upTo: number): Promise<void>;
  /** Called after every stored change that added outbox entries. */
  onChange(listener: () => void): void;
  /** Forgets every license and blocked code (no events); the outbox is kept. */
  reset(): Promise<void>;
}

/** Name of the document in the state store (`main-licenses.json` in the data dir). */
export const LICENSE_BOOK_DOCUMENT = 'main-licenses';

interface StoredBook {
  licenses: License[];
  blockedCodes: BlockedCode[];
  outbox: OutboxEntry[];
  /** The number of the last change made. */
  lastChange: number;
}

const UUID = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
const text = { type: 'string', minLength: 1 } as const;
const eventSchema = {
  type: 'object',
  required: ['eventId', 'eventType', 'eventSourceId', 'eventObjectType', 'eventObjectId', 'data'],
  properties: {
    eventId: { type: 'string', pattern: UUID },
    eventType: text,
    eventSourceId: { const: 'main' },
    eventObjectType: { enum: ['license', 'activationCode'] },
    eventObjectId: { type: 'string', minLength: 1, pattern: '^[^/]+$' },
    data: { type: 'object' },
  },
} as const;

const checkBook = createDocumentCheck<StoredBook>(
  {
    type: 'object',
    required: ['licenses', 'blockedCodes', 'outbox', 'lastChange'],
    properties: {
      licenses: {
        type: 'array',
        items: {
          type: 'object',
          required: ['licenseId', 'sub', 'item', 'activationCode', 'provisionedAt'],
          properties: {
            licenseId: text,
            sub: text,
            item: text,
            activationCode: text,
            provisionedAt: text,
          },
        },
      },
      blockedCodes: {
        type: 'array',
        items: {
          type: 'object',
          required: ['activationCode', 'blockedAt'],
          properties: { activationCode: text, blockedAt: text },
        },
      },
      outbox: {
        type: 'array',
        items: {
          type: 'object',
          required: ['change', 'events'],
          properties: {
            change: { type: 'integer', minimum: 1 },
            events: { type: 'array', minItems: 1, items: eventSchema },
          },
        },
      },
      lastChange: { type: 'integer', minimum: 0 },
    },
  },
  (book) => {
    const unique = (values: string[], what: string, where: string) => {
      const seen = new Set<string>();
      values.forEach((value, i) => {
        if (seen.has(value)) throw new Error(`/${where}/${i} ${what} ${value} is there twice`);
        seen.add(value);
      });
    };
    unique(
      book.licenses.map((l) => l.licenseId),
      'licenseId',
      'licenses',
    );
    unique(
      book.licenses.map((l) => l.activationCode),
      'activationCode',
      'licenses',
    );
    unique(
      book.blockedCodes.map((b) => b.activationCode),
      'activationCode',
      'blockedCodes',
    );
    unique(
      book.outbox.flatMap((entry) => entry.events.map((e) => e.eventId)),
      'eventId',
      'outbox',
    );
    let previous = 0;
    book.outbox.forEach((entry, i) => {
      if (entry.change <= previous) throw new Error(`/outbox/${i}/change does not increase`);
      previous = entry.change;
    });
    if (previous > book.lastChange) throw new Error('/lastChange is below an outbox change');
  },
);

/** Letters and digits that cannot be mistaken for each other (no 0/O, 1/I/L). */
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

/** A new activation code: four groups of four, e.g. `K7QF-2MZX-9PAD-W3HT`. */
function generateActivationCode(): string {
  const groups: string[] = [];
  for (let g = 0; g < 4; g++) {
    let group = '';
    for (let i = 0; i < 4; i++) group += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
    groups.push(group);
  }
  return groups.join('-');
}

/**
 * Loads the license book from `store` (nothing stored: empty). A damaged document stops the
 * server, like every data file (docs/decisions/0008-data-dir-integrity.md).
 *
 * @example
 * const book = await loadLicenseBook(app.store, { now: () => app.clock.now(), maxLicenses: 10_000 });
 * const license = await book.provision({ sub: 'alice', item: 'Pro' });
 */
export async function loadLicenseBook(
  store: StateStore,
  options: LicenseBookOptions,
): Promise<LicenseBook> {
  let book: StoredBook = (await store.read(LICENSE_BOOK_DOCUMENT, checkBook)) ?? {
    licenses: [],
    blockedCodes: [],
    outbox: [],
    lastChange: 0,
  };
  let byId = new Map<string, License>();
  let bySub = new Map<string, License[]>();
  let blocked = new Map<string, string>();
  const index = () => {
    byId = new Map(book.licenses.map((l) => [l.licenseId, l]));
    bySub = new Map();
    for (const license of book.licenses) {
      const held = bySub.get(license.sub);
      if (held) held.push(license);
      else bySub.set(license.sub, [license]);
    }
    blocked = new Map(book.blockedCodes.map((b) => [b.activationCode, b.blockedAt]));
  };
  index();

  const listeners = new Set<() => void>();
  const audit = { audit: options.audit ?? false };
  const isoNow = () => new Date(options.now()).toISOString();

  // One change at a time: each write holds every earlier change.
  let queue: Promise<unknown> = Promise.resolve();
  const serialise = <T>(step: () => Promise<T>): Promise<T> => {
    const result = queue.then(step);
    queue = result.catch(() => undefined);
    return result;
  };
  const commit = async (next: StoredBook): Promise<void> => {
    await store.write(LICENSE_BOOK_DOCUMENT, next);
    book = next;
    index();
  };
  /** Stores `change(book)` with its events in the outbox, then tells the listeners. */
  const change = async (
    make: (change: number) => Omit<StoredBook, 'outbox' | 'lastChange'>,
    events: MainEvent[],
  ): Promise<void> => {
    if (book.outbox.length >= options.maxLicenses) {
      throw new ApiError(
        503,
        'outbox_full',
        `${book.outbox.length} changes wait for the event service; try again once they are written`,
        { 'retry-after': '5' },
      );
    }
    const number = book.lastChange + 1;
    await commit({
      ...make(number),
      outbox: [...book.outbox, { change: number, events }],
      lastChange: number,
    });
    for (const listener of listeners) listener();
  };

  const owner = (code: string) => book.licenses.find((l) => l.activationCode === code)?.sub;

  return {
    provision: (request) =>
      serialise(async () => {
        const activationCode = request.activationCode ?? generateActivationCode();
        if (blocked.has(activationCode)) {
          throw new ApiError(409, 'activation_code_blocked', `${activationCode} is blocked`);
        }
        if (book.licenses.some((l) => l.activationCode === activationCode)) {
          throw new ApiError(
            409,
            'activation_code_used',
            `${activationCode} has provisioned a license already`,
          );
        }
        if (book.licenses.length >= options.maxLicenses) {
          throw new ApiError(
            409,
            'too_many_licenses',
            `The mock main holds ${options.maxLicenses} licenses, its limit (--max-licenses)`,
          );
        }
        const license: License = {
          licenseId: randomUUID(),
          sub: request.sub,
          item: request.item,
          activationCode,
          provisionedAt: isoNow(),
        };
        await change(
          () => ({ licenses: [...book.licenses, license], blockedCodes: book.blockedCodes }),
          licenseProvisionedEvents(license, audit),
        );
        return license;
      }),
    revoke: (licenseId) =>
      serialise(async () => {
        const license = byId.get(licenseId);
        if (!license) return undefined;
        await change(
          () => ({
            licenses: book.licenses.filter((l) => l !== license),
            blockedCodes: book.blockedCodes,
          }),
          licenseRevokedEvents(license, audit),
        );
        return license;
      }),
    block: (activationCode) =>
      serialise(async () => {
        if (blocked.has(activationCode)) return false;
        const blockedAt = isoNow();
        const userId = owner(activationCode);
        await change(
          () => ({
            licenses: book.licenses,
            blockedCodes: [...book.blockedCodes, { activationCode, blockedAt }],
          }),
          activationCodeEvents(
            { activationCode, blockedAt, blocked: true, ...(userId ? { userId } : {}) },
            audit,
          ),
        );
        return true;
      }),
    unblock: (activationCode) =>
      serialise(async () => {
        const blockedAt = blocked.get(activationCode);
        if (blockedAt === undefined) return false;
        const userId = owner(activationCode);
        await change(
          () => ({
            licenses: book.licenses,
            blockedCodes: book.blockedCodes.filter((b) => b.activationCode !== activationCode),
          }),
          activationCodeEvents(
            { activationCode, blockedAt, blocked: false, ...(userId ? { userId } : {}) },
            audit,
          ),
        );
        return true;
      }),
    list: (sub) =>
      (sub === undefined ? book.licenses : (bySub.get(sub) ?? [])).map((license) => ({
        ...license,
        live: !blocked.has(license.activationCode),
      })),
    blockedCodes: () => book.blockedCodes,
    liveLicense(sub, item, licenseId) {
      const held = bySub.get(sub);
      if (!held) return undefined;
      return held.find(
        (l) =>
          l.item === item &&
          (licenseId === undefined || l.licenseId === licenseId) &&
          !blocked.has(l.activationCode),
      );
    },
    outbox: () => book.outbox,
    acknowledge: (upTo) =>
      serialise(async () => {
        const rest = book.outbox.filter((entry) => entry.change > upTo);
        if (rest.length === book.outbox.length) return;
        await commit({ ...book, outbox: rest });
      }),
    onChange(listener) {
      listeners.add(listener);
    },
    reset: () =>
      serialise(async () => {
        if (book.licenses.length === 0 && book.blockedCodes.length === 0) return;
        await commit({ ...book, licenses: [], blockedCodes: [] });
      }),
  };
}
