// A loopback TCP relay in front of the mock server, for the `refused` outage: closing it makes
// main's port refuse connections while the standby (same mock server, other port) stays up.
import { createConnection, createServer, type Server, type Socket } from 'node:net';

/** The relay in front of main (see {@link startMainGate}). */
export interface MainGate {
  /** Port the SDK's main URL points at. */
  readonly port: number;
  /** False while refusing. */
  readonly isOpen: boolean;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Stops listening and destroys every relayed connection: new connections are refused. */
  refuse(): Promise<void>;
  /** Listens again on the same port. */
  reopen(): Promise<void>;
  /** Refuses for good. */
  close(): Promise<void>;
}

/** Where {@link startMainGate} relays to, and where it listens. */
export interface MainGateOptions {
  targetPort: number;
  targetHost?: string;
  /** Default `127.0.0.1`. */
  host?: string;
  /** Default 0: a free port, kept across `refuse()` / `reopen()`. */
  port?: number;
}

/**
 * Starts a TCP relay to `targetHost:targetPort`. Bytes pass unchanged both ways, so HTTP
 * keep-alive, timeouts and resets behave as they would against main itself. `refuse()` is a
 * port with nothing listening (ECONNREFUSED for new connections, in-flight ones reset), which
 * the mock server's admin faults cannot express since the standby shares its port.
 *
 * @example
 * const gate = await startMainGate({ targetPort: 8787 });
 * const mainUrl = `http://127.0.0.1:${gate.port}/main`;
 * await gate.refuse(); // main is down
 * await gate.reopen(); // main is back
 */
export async function startMainGate(options: MainGateOptions): Promise<MainGate> {
  const host = options.host ?? '127.0.0.1';
  const targetHost = options.targetHost ?? '127.0.0.1';
  const live = new Set<Socket>();
  let accepted = 0;
  let server: Server | undefined;
  let port = options.port ?? 0;

  const relay = (client: Socket) => {
    accepted++;
    const upstream = createConnection({ host: targetHost, port: options.targetPort });
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    for (const socket of [client, upstream]) {
      live.add(socket);
      socket.once('close', () => live.delete(socket));
    }
    // Either side failing or closing ends both: a reset stays a reset for the other side.
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.resetAndDestroy());
    client.pipe(upstream);
    upstream.pipe(client);
  };

  const listen = async () => {
    const next = createServer({ noDelay: true }, relay);
    await new Promise<void>((resolve, reject) => {
      next.once('error', reject);
      next.listen(port, host, () => {
        next.off('error', reject);
        resolve();
      });
    });
    port = (next.address() as { port: number }).port;
    server = next;
  };

  const refuse = async () => {
    const current = server;
    server = undefined;
    if (!current) return;
    const closed = new Promise<void>((resolve) => current.close(() => resolve()));
    for (const socket of live) socket.resetAndDestroy();
    await closed;
  };

  await listen();
  return {
    get port() {
      return port;
    },
    get isOpen() {
      return server !== undefined;
    },
    get accepted() {
      return accepted;
    },
    refuse,
    async reopen() {
      if (!server) await listen();
    },
    close: refuse,
  };
}
