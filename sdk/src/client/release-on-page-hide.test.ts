// releaseOnPageHide on a plain EventTarget: a `pagehide` closes the client with a keepalive
// release; the remover removes the listener; with no window (Node) it registers nothing. The
// real browser (the release reaching the mock after the page is gone) is
// test/browser/react-license-status.test.ts.
import { describe, expect, it, vi } from 'vitest';
import { InvalidOptionError } from '../errors.js';
import type { LicensingClient } from './licensing-client.js';
import { releaseOnPageHide } from './release-on-page-hide.js';

function fakeClient() {
  const close = vi.fn(async (_options?: unknown) => undefined);
  return { client: { close } as unknown as LicensingClient, close };
}

describe('releaseOnPageHide', () => {
  it('closes the client with a keepalive release on pagehide, once per event', () => {
    const target = new EventTarget();
    const { client, close } = fakeClient();
    const stop = releaseOnPageHide(client, { target: target as never });
    expect(close).not.toHaveBeenCalled();
    target.dispatchEvent(new Event('pagehide'));
    expect(close).toHaveBeenCalledWith({ release: true, keepalive: true });
    stop();
    target.dispatchEvent(new Event('pagehide'));
    expect(close).toHaveBeenCalledTimes(1);
  });

  it('a close that rejects is no unhandled rejection', async () => {
    const target = new EventTarget();
    const close = vi.fn(async () => {
      throw new Error('closed badly');
    });
    releaseOnPageHide({ close } as unknown as LicensingClient, { target: target as never });
    target.dispatchEvent(new Event('pagehide'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(close).toHaveBeenCalledTimes(1);
  });

  it('does nothing where there is no window (Node), and refuses a bad target', () => {
    const { client, close } = fakeClient();
    const stop = releaseOnPageHide(client);
    stop();
    expect(close).not.toHaveBeenCalled();
    expect(() => releaseOnPageHide(client, { target: {} as never })).toThrow(InvalidOptionError);
    expect(() => releaseOnPageHide(client, { window: 1 } as never)).toThrow(InvalidOptionError);
  });
});
