// Test helper: the msw server of one test file. Not a test file.
import { type SetupServer, setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';

/**
 * An msw server listening for the whole file (a request no handler matches is an error), its
 * handlers reset after each test and closed after the file.
 *
 * @example
 * const server = useMswServer();
 * server.use(authzHandler('main', ['ok']).handler);
 */
export function useMswServer(): SetupServer {
  const server = setupServer();
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
  return server;
}
