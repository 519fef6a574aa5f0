import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { StoredEvent } from '../store/event-index.js';
import { FeedWaiters, type ParkOptions, type Waiter } from './feed-waiters.js';

/** Options of {@link createLongPollResponder}. */
export interface LongPollResponderOptions<T extends { reply: FastifyReply }> {
  /** Events now available to `poll`. */
  available(poll: T): number;
  /** Sends `poll`'s answer on its reply (a throw is sent as the error answer instead). */
  send(poll: T): void;
}

/** Parks feed reads on their Fastify replies and answers them (see {@link createLongPollResponder}). */
export interface LongPollResponder<T extends { reply: FastifyReply }> {
  /** The waiters (size, for tests and diagnostics). */
  readonly waiters: FeedWaiters<T>;
  /**
   * Parks `poll` until it should answer; false, parking nothing, when it should answer now. A
   * parked poll is answered through `send` later, or dropped when its client goes away (a poll
   * whose client is already gone is dropped at once, and `park` returns true).
   */
  park(poll: T, options: ParkOptions): boolean;
  /** Wakes the polls of the feeds the committed events belong to. */
  notify(events: readonly StoredEvent[]): void;
  /**
   * Shutdown: answers every parked poll with what it has, then waits until every answer has been
   * written or `timeoutMs` passed (so closing the connections loses no answer).
   */
  releaseAll(timeoutMs: number): Promise<void>;
}

/**
 * The long-poll side of the feed routes: it parks the route's reply without an async handler,
 * a promise or `request.signal` per poll (each costs memory while thousands of polls sit idle,
 * bench row 5). A parked poll holds a {@link Waiter}, its timer, one map entry and one `close`
 * listener on the response, shared by every poll: `close` before the answer means the client
 * went away (the waiter is dropped), after it that the answer is written.
 *
 * @example
 * const polls = createLongPollResponder<Poll>({ available: count, send: sendPage });
 * if (!polls.park(poll, { feed, maxEventCount, minWaitMs, maxWaitMs })) sendPage(poll);
 */
export function createLongPollResponder<T extends { reply: FastifyReply }>(
  options: LongPollResponderOptions<T>,
): LongPollResponder<T> {
  /** Parked polls by response, so the shared `close` listener finds its waiter. */
  const parked = new Map<ServerResponse, Waiter<T>>();
  /** Answers of parked polls still being written. */
  const answering = new Set<ServerResponse>();
  let drained: (() => void) | undefined;

  const waiters = new FeedWaiters<T>({
    available: options.available,
    answer(poll) {
      const response = poll.reply.raw;
      parked.delete(response);
      answering.add(response);
      try {
        options.send(poll);
      } catch (error) {
        poll.reply.send(error);
      }
    },
  });

  // `this` is the response: one function for every parked poll, no closure per poll.
  function onResponseClose(this: ServerResponse): void {
    const waiter = parked.get(this);
    if (waiter) {
      parked.delete(this);
      waiters.cancel(waiter);
    }
    if (answering.delete(this) && answering.size === 0) drained?.();
  }

  return {
    waiters,
    park(poll, parkOptions) {
      const response = poll.reply.raw;
      // The client is gone already: nobody to answer.
      if (poll.reply.request.raw.socket?.destroyed) return true;
      const waiter = waiters.park(poll, parkOptions);
      if (!waiter) return false;
      parked.set(response, waiter);
      response.on('close', onResponseClose);
      return true;
    },
    notify: (events) => waiters.notify(events),
    async releaseAll(timeoutMs) {
      waiters.releaseAll();
      if (answering.size === 0) return;
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        drained = resolve;
        timer = setTimeout(resolve, timeoutMs);
      });
      clearTimeout(timer);
      drained = undefined;
    },
  };
}
