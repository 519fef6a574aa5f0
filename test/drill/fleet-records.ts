// What the client side of a drill records, as columns of numbers (cheap to keep for hundreds of
// thousands of requests and to send from a worker process), and how workers' records merge.

/** Services a request can go to, by column value. */
export const SERVICES = ['main', 'standby', 'other'] as const;
/** Routes of the licensing services, by column value. */
export const ROUTES = ['authz', 'jwks', 'enabled', 'other'] as const;
/** Who served the lease an app holds, by column value (`none`: it holds no lease). */
export const HOLDERS = ['none', 'main', 'standby'] as const;
/** Client and app events, by column value. */
export const EVENT_KINDS = [
  'failover',
  'failback',
  'circuitOpen',
  'circuitClose',
  'restart',
  'lapse',
] as const;

export type ServiceName = (typeof SERVICES)[number];
export type RouteName = (typeof ROUTES)[number];
export type Holder = (typeof HOLDERS)[number];
export type EventKind = (typeof EVENT_KINDS)[number];

/** Request outcomes below zero: what failed before an HTTP status came back. */
export const NETWORK_OUTCOMES = {
  refused: -1,
  reset: -2,
  timeout: -3,
  aborted: -4,
  other: -5,
} as const;

/** Bits of a request's or call's `flags`: the client's state when it started. */
export const FLAG = {
  /** The client was on the standby (`activeService === 'standby'`). */
  onStandby: 1,
  /** Strategy A's circuit breaker was open. */
  breakerOpen: 2,
  /** An app's call was in flight. */
  inCall: 4,
  /** A main request without credentials: Strategy B's probe of main (never part of a call). */
  probe: 8,
} as const;

/** One HTTP request of an SDK client, as its injected fetch saw it. */
export interface RequestRecord {
  /** Start, ms from the run's start. */
  t: number;
  /** Time to the response headers (or the failure), ms. */
  dur: number;
  app: number;
  service: ServiceName;
  route: RouteName;
  /** HTTP status, or a {@link NETWORK_OUTCOMES} value. */
  outcome: number;
  flags: number;
}

/** One licensing call of an app (its first checkout, a renewal, a checkout after a restart). */
export interface CallRecord {
  t: number;
  dur: number;
  app: number;
  kind: 'checkout' | 'renew';
  /** Who served the lease it got; `none` when it failed. */
  servedBy: Holder;
  /** The LicensingError code (or error name) when it failed. */
  code: string | undefined;
  /** Main requests the SDK sent during this call. */
  mainRequests: number;
  flags: number;
}

/** Columns of every record kind. Row `i` of a kind is the i-th entry of each of its columns. */
export interface FleetRecords {
  requests: {
    t: number[];
    dur: number[];
    app: number[];
    service: number[];
    route: number[];
    outcome: number[];
    flags: number[];
  };
  calls: {
    t: number[];
    dur: number[];
    app: number[];
    kind: number[];
    servedBy: number[];
    /** Index into `codes`, -1 for none. */
    code: number[];
    mainRequests: number[];
    flags: number[];
  };
  /** Each change of the lease an app holds. */
  leases: { t: number[]; app: number[]; holder: number[] };
  events: {
    t: number[];
    app: number[];
    kind: number[] /** Index into `codes`, -1 none. */;
    detail: number[];
  };
  /** Error codes and event details, referenced by index. */
  codes: string[];
}

/** Appends records column by column. */
export interface FleetRecorder {
  request(record: RequestRecord): void;
  call(record: CallRecord): void;
  lease(t: number, app: number, holder: Holder): void;
  event(t: number, app: number, kind: EventKind, detail?: string): void;
  /** The columns recorded so far (live arrays, not copies). */
  readonly records: FleetRecords;
  /** A copy of the columns as they are now (later records do not show in it). */
  snapshot(): FleetRecords;
}

/** Empty columns. */
export function emptyFleetRecords(): FleetRecords {
  return {
    requests: { t: [], dur: [], app: [], service: [], route: [], outcome: [], flags: [] },
    calls: {
      t: [],
      dur: [],
      app: [],
      kind: [],
      servedBy: [],
      code: [],
      mainRequests: [],
      flags: [],
    },
    leases: { t: [], app: [], holder: [] },
    events: { t: [], app: [], kind: [], detail: [] },
    codes: [],
  };
}

/**
 * Creates a recorder whose columns can be sent as they are to another process and merged there
 * with {@link mergeFleetRecords}.
 *
 * @example
 * const recorder = createFleetRecorder();
 * recorder.lease(1200, 7, 'main');
 * process.send?.(recorder.records);
 */
export function createFleetRecorder(): FleetRecorder {
  const records = emptyFleetRecords();
  const codeIndex = new Map<string, number>();
  const indexOf = (code: string | undefined): number => {
    if (code === undefined) return -1;
    let index = codeIndex.get(code);
    if (index === undefined) {
      index = records.codes.length;
      records.codes.push(code);
      codeIndex.set(code, index);
    }
    return index;
  };
  const { requests, calls, leases, events } = records;
  const copyColumns = <T extends Record<string, number[]>>(columns: T): T =>
    Object.fromEntries(Object.entries(columns).map(([key, column]) => [key, column.slice()])) as T;
  return {
    records,
    snapshot: () => ({
      requests: copyColumns(requests),
      calls: copyColumns(calls),
      leases: copyColumns(leases),
      events: copyColumns(events),
      codes: records.codes.slice(),
    }),
    request(r) {
      requests.t.push(r.t);
      requests.dur.push(r.dur);
      requests.app.push(r.app);
      requests.service.push(SERVICES.indexOf(r.service));
      requests.route.push(ROUTES.indexOf(r.route));
      requests.outcome.push(r.outcome);
      requests.flags.push(r.flags);
    },
    call(r) {
      calls.t.push(r.t);
      calls.dur.push(r.dur);
      calls.app.push(r.app);
      calls.kind.push(r.kind === 'checkout' ? 0 : 1);
      calls.servedBy.push(HOLDERS.indexOf(r.servedBy));
      calls.code.push(indexOf(r.code));
      calls.mainRequests.push(r.mainRequests);
      calls.flags.push(r.flags);
    },
    lease(t, app, holder) {
      leases.t.push(t);
      leases.app.push(app);
      leases.holder.push(HOLDERS.indexOf(holder));
    },
    event(t, app, kind, detail) {
      events.t.push(t);
      events.app.push(app);
      events.kind.push(EVENT_KINDS.indexOf(kind));
      events.detail.push(indexOf(detail));
    },
  };
}

/** Concatenates the records of several workers (their code tables merged, indexes remapped). */
export function mergeFleetRecords(parts: readonly FleetRecords[]): FleetRecords {
  const merged = createFleetRecorder();
  const out = merged.records;
  for (const part of parts) {
    const remap = (index: number) => {
      if (index < 0) return -1;
      const code = part.codes[index]!;
      let mapped = out.codes.indexOf(code);
      if (mapped < 0) mapped = out.codes.push(code) - 1;
      return mapped;
    };
    for (const key of Object.keys(out.requests) as Array<keyof FleetRecords['requests']>) {
      for (const value of part.requests[key]) out.requests[key].push(value);
    }
    for (const key of Object.keys(out.calls) as Array<keyof FleetRecords['calls']>) {
      const column = key === 'code' ? part.calls.code.map(remap) : part.calls[key];
      for (const value of column) out.calls[key].push(value);
    }
    for (const key of Object.keys(out.leases) as Array<keyof FleetRecords['leases']>) {
      for (const value of part.leases[key]) out.leases[key].push(value);
    }
    for (const key of Object.keys(out.events) as Array<keyof FleetRecords['events']>) {
      const column = key === 'detail' ? part.events.detail.map(remap) : part.events[key];
      for (const value of column) out.events[key].push(value);
    }
  }
  return out;
}
