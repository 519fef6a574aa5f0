/**
 * A value made once by an async maker (a key, a certificate chain): on the first `get()`, or
 * when the server makes every deferred key right after it listens. A making that fails is
 * forgotten, so the next `get()` tries again.
 */
export interface Deferred<T> {
  /** The value, made on the first call; later calls share it. */
  get(): Promise<T>;
  /** The value once made, else undefined (never starts the making). */
  readonly value: T | undefined;
}

/**
 * A {@link Deferred} made by `make` on first use.
 *
 * @example
 * const issuer = defer(() => generateRsaKey());
 * const { kid } = await issuer.get();
 */
export function defer<T>(make: () => Promise<T>): Deferred<T> {
  let value: T | undefined;
  let making: Promise<T> | undefined;
  return {
    get value() {
      return value;
    },
    get() {
      if (value !== undefined) return Promise.resolve(value);
      making ??= make().then(
        (made) => {
          value = made;
          return made;
        },
        (err: unknown) => {
          making = undefined;
          throw err;
        },
      );
      return making;
    },
  };
}

/**
 * A {@link Deferred} that is made already (a key loaded from the data dir).
 *
 * @example
 * const issuer = stored ? made(loadRsaKey(stored)) : defer(() => generateRsaKey());
 */
export function made<T>(value: T): Deferred<T> {
  return { value, get: () => Promise.resolve(value) };
}

/**
 * The keys and certificates of one server that are made on demand rather than before it
 * listens (RSA key generation costs 50-300 ms of CPU per key). Services add theirs while they
 * are registered; {@link DeferredKeys.makeAll} makes every one not made yet.
 */
export interface DeferredKeys {
  /** Adds a deferred key; `makeAll` makes it in the order added. */
  add(key: Deferred<unknown>): void;
  /**
   * Makes every key not made yet, one at a time in the order added (so a route that needs a key
   * later in the list finds a free core to make it on demand), and resolves once all are made.
   * Rejects with the first failure; the keys after it are still made on first use.
   */
  makeAll(): Promise<void>;
  /** Resolves once no {@link DeferredKeys.makeAll} is running (its failure is not repeated). */
  settled(): Promise<void>;
}

/**
 * Creates the empty list of a server's deferred keys.
 *
 * @example
 * const keys = createDeferredKeys();
 * keys.add(issuer);
 * await keys.makeAll();
 */
export function createDeferredKeys(): DeferredKeys {
  const keys: Deferred<unknown>[] = [];
  let running: Promise<void> | undefined;
  const run = async () => {
    for (const key of keys) await key.get();
  };
  return {
    add(key) {
      keys.push(key);
    },
    makeAll() {
      if (keys.every((key) => key.value !== undefined)) return Promise.resolve();
      running ??= run().finally(() => {
        running = undefined;
      });
      return running;
    },
    settled: () => (running ?? Promise.resolve()).catch(() => undefined),
  };
}
