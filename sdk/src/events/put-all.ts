import { LicensingError } from '../errors.js';
import { nextTask } from '../internal/next-task.js';
import type { NewEvent, PutContext, PutOptions } from './put-events.js';
import { postEventBatch, signEventBatch } from './put-events.js';

/** Options of `putAll`. */
export interface PutAllOptions extends PutOptions {
  /** Called after each batch the service acknowledged (201), with its index from 0. */
  onBatchWritten?: (index: number) => void;
}

/** Result of `putAll`. */
export interface PutAllResult {
  /** Batches written. */
  batches: number;
  /** Events written. */
  events: number;
}

/**
 * Writes batches in order with one request in flight, signing the next batch while the last one
 * is on the wire (the RSA work runs on WebCrypto, off the JavaScript thread on Node): throughput
 * is that of the slower of signing and posting, not their sum. The next batch is signed in a
 * later task than the post: `fetch` writes a request only after the current task's microtasks,
 * so the signing's JavaScript (JSON, base64url) would otherwise hold the request back. A batch
 * is posted only after the one before it was acknowledged, so the feed keeps the batches' order.
 * The first failure stops the walk and rejects with its error; every batch before it was stored
 * (and reported to `onBatchWritten`), none after it.
 */
export async function putAllEvents(
  context: PutContext,
  batches: Iterable<readonly NewEvent[]> | AsyncIterable<readonly NewEvent[]>,
  options: PutAllOptions = {},
): Promise<PutAllResult> {
  const { signal, signer, onBatchWritten } = options;
  if (onBatchWritten !== undefined && typeof onBatchWritten !== 'function') {
    throw new LicensingError(
      'INVALID_ARGUMENT',
      'onBatchWritten is not a function. Pass a function, or leave it out.',
    );
  }
  const source =
    Symbol.asyncIterator in batches
      ? (batches as AsyncIterable<readonly NewEvent[]>)[Symbol.asyncIterator]()
      : (batches as Iterable<readonly NewEvent[]>)[Symbol.iterator]();
  const nextSigned = async (): Promise<{ jws: string; size: number } | undefined> => {
    const step = await source.next();
    if (step.done) return undefined;
    return { jws: await signEventBatch(context, step.value, signer), size: step.value.length };
  };
  const result: PutAllResult = { batches: 0, events: 0 };
  let finished = false;
  try {
    let current = await nextSigned();
    while (current) {
      signal?.throwIfAborted();
      // The request leaves first; the next batch is signed while it is on the wire.
      const posting = postEventBatch(context, current.jws, signal);
      const following = nextTask().then(nextSigned);
      // Keep an early signing failure from going unhandled while the post is in flight.
      following.catch(() => undefined);
      await posting;
      onBatchWritten?.(result.batches);
      result.batches += 1;
      result.events += current.size;
      current = await following;
    }
    finished = true;
    return result;
  } finally {
    // Stopped early: let a generator source clean up.
    if (!finished) await source.return?.();
  }
}
