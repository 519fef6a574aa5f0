import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CAPTIVE_PORTAL_PAGE, htmlErrorPage } from './fault-pages.js';
import { FAULT_SERVICES, type FaultRegistry, type FaultService } from './fault-registry.js';

/** Requests a `truncate` fault hit: their answer goes out cut off. */
const truncated = new WeakSet<FastifyRequest>();

/**
 * Whether a `truncate` fault cut off the answer to `request` (the request log says so).
 *
 * @example
 * if (isTruncated(request)) entry.outcome = 'truncated';
 */
export function isTruncated(request: FastifyRequest): boolean {
  return truncated.has(request);
}

/** Calls `onClose` once the client's connection for `reply` goes away. */
function onClientGone(reply: FastifyReply, onClose: () => void): void {
  reply.raw.once('close', onClose);
}

/** The service a path belongs to, by its first segment. */
function serviceOf(
  path: string,
  prefixes: Readonly<Record<FaultService, string>>,
): FaultService | undefined {
  for (const service of FAULT_SERVICES) {
    const prefix = prefixes[service];
    if (path === prefix || path.startsWith(`${prefix}/`) || path.startsWith(`${prefix}?`)) {
      return service;
    }
  }
  return undefined;
}

/**
 * Installs the faults of `registry` on every service of `app` (the root instance; call it before
 * the services are registered, so it learns their routes):
 *
 * - an `onRoute` hook records each service's routes, the names a fault can target;
 * - an `onRequest` hook, run before any service hook (authentication included), applies the fault
 *   of a request's service and route: `reset` destroys the socket with a TCP reset, `hang` never
 *   answers (released when the client gives up or the server closes), `error` answers its status
 *   (a 429 ApiError with the CORS headers, or a 5xx HTML page like a load balancer's),
 *   `captive-portal` answers 200 with an HTML login page, `delay` waits then carries on,
 *   `truncate` marks the request;
 * - an `onSend` hook sends a marked request's answer with its own status and headers, its
 *   `Content-Length` that of the whole body and only the first half of the body, then closes the
 *   connection.
 *
 * Preflights (`OPTIONS`) are never faulted, so a browser goes on to the request and meets its
 * fault. A request that ends without an answer is told to the registry's `onUnanswered`.
 *
 * @example
 * installFaults(app, createFaultRegistry({ prefixes: SERVICE_PREFIXES }));
 */
export function installFaults(app: FastifyInstance, registry: FaultRegistry): void {
  const { prefixes } = registry;
  app.addHook('onRoute', (route) => {
    const service = serviceOf(route.url, prefixes);
    if (service !== undefined)
      registry.addRoute(service, route.url.slice(prefixes[service].length));
  });

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.method === 'OPTIONS') return;
    const service = serviceOf(request.url, prefixes);
    if (service === undefined) return;
    const url = request.routeOptions.url;
    const route = url?.startsWith(`${prefixes[service]}/`)
      ? url.slice(prefixes[service].length)
      : undefined;
    const hit = registry.take(service, route);
    if (!hit) return;
    const { fault } = hit;
    switch (fault.mode) {
      case 'reset': {
        reply.hijack();
        const socket = request.raw.socket;
        if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
        else socket.destroy();
        registry.onUnanswered?.(request, reply, 'reset');
        return;
      }
      case 'hang': {
        reply.hijack();
        registry.held.hang++;
        onClientGone(reply, () => {
          registry.held.hang--;
          registry.onUnanswered?.(request, reply, 'hang');
        });
        return;
      }
      case 'error': {
        const status = fault.status ?? 503;
        if (fault.retryAfterSeconds !== undefined) {
          reply.header('retry-after', String(fault.retryAfterSeconds));
        }
        if (status === 429) {
          // What rate limiters in front of an API answer: JSON, as the services' own errors.
          return reply.code(429).type('application/json').send({
            error: 'too_many_requests',
            error_description: 'Rate limit exceeded',
          });
        }
        return reply.code(status).type('text/html; charset=utf-8').send(htmlErrorPage(status));
      }
      case 'captive-portal':
        return reply.code(200).type('text/html; charset=utf-8').send(CAPTIVE_PORTAL_PAGE);
      case 'truncate':
        if (request.method !== 'HEAD') truncated.add(request);
        return;
      case 'delay': {
        const controller = new AbortController();
        const abort = () => controller.abort();
        onClientGone(reply, abort);
        registry.held.delay++;
        try {
          await sleep(hit.delayMs, undefined, { signal: controller.signal });
        } catch {
          // The client went away while we slept: nobody is left to answer.
          reply.hijack();
          registry.onUnanswered?.(request, reply, 'aborted');
        } finally {
          registry.held.delay--;
          reply.raw.off('close', abort);
        }
        return;
      }
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    if (!truncated.has(request)) return payload;
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    const body = Buffer.isBuffer(payload) ? payload : Buffer.from(payload);
    // An empty answer has nothing to cut off.
    if (body.length === 0) return payload;
    // The whole body's length, half of it sent, then the connection closes: the client reads a
    // body that ends early ("other side closed", "terminated"), as behind a dying proxy.
    reply.header('content-length', String(body.length));
    reply.header('connection', 'close');
    // As a stream, so Fastify keeps that Content-Length (it corrects a shorter string's); Node
    // ends the answer short of it and closes the connection (`Connection: close`).
    return Readable.from([body.subarray(0, Math.floor(body.length / 2))]);
  });
}
