import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { FaultRegistry } from './fault-registry.js';

const STATUS_TEXT: Record<number, string> = {
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

function htmlPage(status: number): string {
  const text = STATUS_TEXT[status] ?? 'Error';
  return `<!DOCTYPE html>\n<html><head><title>${status} ${text}</title></head><body><h1>${status} ${text}</h1><p>The server is temporarily unable to service your request.</p></body></html>\n`;
}

/** Calls `onClose` once the client's connection for `reply` goes away. */
function onClientGone(reply: FastifyReply, onClose: () => void): void {
  reply.raw.once('close', onClose);
}

/**
 * An `onRequest` hook that applies the registry's faults to the routes of the service it is added
 * to (`prefix` is the service's prefix, stripped to get the route name): `reset` destroys the
 * socket with a TCP reset, `hang` never answers (released when the client gives up or the server
 * closes), `error` answers 500/503 with an HTML body, `delay` waits then carries on. A request
 * that ends without an answer is told to the registry's `onUnanswered`.
 *
 * @example
 * app.addHook('onRequest', createFaultHook(faults, app.prefix));
 */
export function createFaultHook(
  registry: FaultRegistry,
  prefix: string,
): onRequestAsyncHookHandler {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const fault = registry.take(request.routeOptions.url?.slice(prefix.length));
    if (!fault) return;
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
        return reply.code(status).type('text/html; charset=utf-8').send(htmlPage(status));
      }
      case 'delay': {
        const controller = new AbortController();
        const abort = () => controller.abort();
        onClientGone(reply, abort);
        registry.held.delay++;
        try {
          await sleep(fault.delayMs ?? 0, undefined, { signal: controller.signal });
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
  };
}
