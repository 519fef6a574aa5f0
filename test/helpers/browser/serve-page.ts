import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A page served from its own loopback origin. */
export interface ServedPage {
  /** `http://127.0.0.1:<port>`: an origin of its own, never the mock server's. */
  origin: string;
  /** The page's URL (`<origin>/`). */
  url: string;
  /** Stops serving. */
  close(): Promise<void>;
}

/** A further file a page's origin serves, e.g. a service worker script. */
export interface ServedFile {
  /** `Content-Type` of the answer. */
  type: string;
  body: string;
}

/** Options of {@link servePage}. */
export interface ServePageOptions {
  /** Further files by path, e.g. `{ '/mockServiceWorker.js': { type, body } }`. */
  files?: Readonly<Record<string, ServedFile>>;
}

/**
 * Serves a test page on 127.0.0.1, a free port: `/` is an HTML page that loads `/page.js`
 * (`script`, an ES module, e.g. from `bundlePage`), plus `options.files`. Anything else is 404.
 */
export async function servePage(
  script: string,
  title = 'standby-licensing browser test',
  options: ServePageOptions = {},
): Promise<ServedPage> {
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title><script type="module" src="/page.js"></script></head><body></body></html>`;
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://page').pathname;
    const file = Object.hasOwn(options.files ?? {}, path) ? options.files?.[path] : undefined;
    const [status, type, body] =
      path === '/'
        ? [200, 'text/html; charset=utf-8', html]
        : path === '/page.js'
          ? [200, 'text/javascript; charset=utf-8', script]
          : file
            ? [200, file.type, file.body]
            : [404, 'text/plain; charset=utf-8', 'not found'];
    response.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    url: `${origin}/`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
