/**
 * opentelemetry-spans.ts: the OpenTelemetry recipe of docs/observability.md. The SDK publishes
 * its operations on `node:diagnostics_channel` and depends on no tracing library; this module
 * turns them into OpenTelemetry spans.
 *
 * What it does:
 *   One span per checkout, renewal (the lease keeper's too) and restore:
 *   `licensing.checkout`, `licensing.renew`, `licensing.restore`. Attributes: the items asked
 *   (`licensing.items`), the service that served (`licensing.service`: main or standby), the
 *   failover reason when the call switched to the standby (`licensing.failover.reason`, plus a
 *   `licensing.failover` span event), each failed attempt as a `licensing.attempt_failed` span
 *   event, and for a failed call its code and reason (`error.type`, `licensing.error.code`,
 *   `licensing.error.reason`), the exception and an error status.
 *
 * Not a scenario of its own: an app calls `traceLicensing(trace.getTracer('my-app'))` once at
 * start, after registering its OpenTelemetry SDK. examples/opentelemetry-spans.test.ts runs it
 * with the SDK's in-memory exporter against an in-process mock server, through a failover.
 *
 * Assumptions:
 *   - Node (or Bun, Deno): `node:diagnostics_channel` and `node:async_hooks`.
 *   - `@opentelemetry/api` 1.x; the tracer provider is the app's (any exporter).
 *   - The failover reason reaches the span through an AsyncLocalStorage bound to the
 *     tracing channel's `start` (`bindStore`): the SDK runs each operation inside it, so the
 *     `standby-licensing:failover` message published during a checkout finds that checkout's span.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import diagnostics from 'node:diagnostics_channel';
import { type Span, SpanStatusCode, type Tracer } from '@opentelemetry/api';

/** What the SDK's traced operations carry (docs/observability.md, "Payloads"). */
interface LicensingMessage {
  items?: string[];
  lease?: { item: string; servedBy: string };
  result?: { servedBy?: string; leases?: Array<{ servedBy: string }> };
  error?: { code?: string; reason?: string; message: string };
}

/**
 * Makes OpenTelemetry spans of the licensing client's checkouts, renewals and restores.
 *
 * @returns A function that stops it.
 * @example
 * const stop = traceLicensing(trace.getTracer('my-app'));
 */
export function traceLicensing(tracer: Tracer): () => void {
  const current = new AsyncLocalStorage<Span>();
  const spans = new WeakMap<object, Span>();
  const stops: Array<() => void> = [];

  for (const operation of ['checkout', 'renew', 'restore']) {
    const channel = diagnostics.tracingChannel<object, LicensingMessage>(
      `standby-licensing:${operation}`,
    );
    // The span starts with the operation and is the store of everything it runs.
    channel.start.bindStore(current, (message) => {
      const { items, lease } = message as LicensingMessage;
      const span = tracer.startSpan(`licensing.${operation}`, {
        attributes: {
          ...(items ? { 'licensing.items': items } : {}),
          ...(lease ? { 'licensing.items': [lease.item] } : {}),
        },
      });
      spans.set(message, span);
      return span;
    });
    const handlers = {
      start() {},
      end() {},
      asyncStart() {},
      error(message: LicensingMessage) {
        const span = spans.get(message);
        const { error } = message;
        if (!span || !error) return;
        span.recordException(error);
        span.setAttributes({
          'error.type': error.code ?? 'Error',
          ...(error.code ? { 'licensing.error.code': error.code } : {}),
          ...(error.reason ? { 'licensing.error.reason': error.reason } : {}),
        });
        span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
      },
      asyncEnd(message: LicensingMessage) {
        const span = spans.get(message);
        if (!span) return;
        // A renewal's result is a lease; a checkout's and a restore's hold leases.
        const served = message.result?.servedBy ?? message.result?.leases?.[0]?.servedBy;
        if (served) span.setAttribute('licensing.service', served);
        span.end();
      },
    };
    channel.subscribe(handlers);
    stops.push(() => {
      channel.unsubscribe(handlers);
      channel.start.unbindStore(current);
    });
  }

  const onFailover = (message: unknown) => {
    const { reason, strategy } = message as { reason: string; strategy: string };
    const span = current.getStore();
    span?.setAttribute('licensing.failover.reason', reason);
    span?.addEvent('licensing.failover', { reason, strategy });
  };
  const onAttemptFailed = (message: unknown) => {
    const { service, attempt, reason } = message as Record<string, string | number>;
    current.getStore()?.addEvent('licensing.attempt_failed', { service, attempt, reason });
  };
  diagnostics.subscribe('standby-licensing:failover', onFailover);
  diagnostics.subscribe('standby-licensing:attemptFailed', onAttemptFailed);
  stops.push(() => {
    diagnostics.unsubscribe('standby-licensing:failover', onFailover);
    diagnostics.unsubscribe('standby-licensing:attemptFailed', onAttemptFailed);
  });
  return () => {
    for (const stop of stops) stop();
  };
}
