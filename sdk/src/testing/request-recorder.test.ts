import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRequestRecorder, mainRefused, standbyEnabled } from './index.js';

const ORIGIN = 'https://licensing.test';
const MAIN = `${ORIGIN}/main`;
const STANDBY = `${ORIGIN}/main-standby`;
const server = setupServer();

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

describe('createRequestRecorder', () => {
  it('counts requests per service, route and method, whichever handler answers', async () => {
    const recorder = createRequestRecorder({ main: MAIN, standby: STANDBY });
    const detach = recorder.attach(server);
    server.use(
      ...mainRefused(MAIN),
      ...standbyEnabled(STANDBY),
      http.all(`${STANDBY}/authz/.jwt`, () => HttpResponse.text('a.b.c')),
      http.get(`${ORIGIN}/elsewhere`, () => HttpResponse.text('ok')),
    );
    await fetch(`${MAIN}/authz/.jwt?ItemA`).catch(() => undefined);
    await fetch(`${MAIN}/authz/.jwt`, { method: 'POST' }).catch(() => undefined);
    await fetch(`${STANDBY}/enabled`);
    await fetch(`${STANDBY}/authz/.jwt?ItemA&ItemB`, { method: 'post' });
    await fetch(`${ORIGIN}/elsewhere`);

    expect(recorder.count()).toBe(4);
    expect(recorder.count({ service: 'main' })).toBe(2);
    expect(recorder.count({ service: 'main', method: 'post' })).toBe(1);
    expect(recorder.count({ service: 'standby', route: '/authz/.jwt' })).toBe(1);
    expect(recorder.count({ service: 'standby', route: '/enabled', method: 'GET' })).toBe(1);
    expect(recorder.requests.at(-1)).toEqual({
      service: 'standby',
      route: '/authz/.jwt',
      method: 'POST',
      url: `${STANDBY}/authz/.jwt?ItemA&ItemB`,
    });

    recorder.reset();
    expect(recorder.count()).toBe(0);
    detach();
    await fetch(`${STANDBY}/enabled`);
    expect(recorder.count()).toBe(0);
  });

  it('records by hand and ignores URLs outside every service', () => {
    const recorder = createRequestRecorder({ main: `${MAIN}/` });
    recorder.record(new Request(`${MAIN}`));
    recorder.record(new Request(`${MAIN}x/authz/.jwt`));
    recorder.record(new Request('https://other.test/main/authz/.jwt'));
    expect(recorder.requests).toEqual([{ service: 'main', route: '/', method: 'GET', url: MAIN }]);
  });
});
