/**
 * renderer.ts: a window of the Electron-shaped example showing the license state (see
 * licensing-main.ts and preload.ts).
 *
 * What it does:
 *   Reads `window.licensing.status()` once, then re-renders on every `onChange`: the service,
 *   each item with its service and end time, and the sentence about the last error. Plain DOM:
 *   the React example (examples/react/) does the same with `useSyncExternalStore` where the
 *   client runs in the page itself.
 */
import type { LicensingBridge } from './preload.js';
import type { RendererStatus } from './renderer-status.js';

function line(tag: string, text: string, attributes: Record<string, string> = {}): HTMLElement {
  const element = document.createElement(tag);
  element.textContent = text;
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  return element;
}

/** Renders `status` into `container`, replacing what was there. */
export function renderStatus(container: HTMLElement, status: RendererStatus): void {
  const via = status.activeService === 'main' ? 'the licensing service' : 'the standby service';
  const list = document.createElement('ul');
  for (const { item, servedBy, expiresAt } of status.items) {
    const until = new Date(expiresAt).toLocaleTimeString([], {
      hour: '2-digit',
      minute: '2-digit',
    });
    list.append(
      line('li', `${item}: licensed via the ${servedBy} service until ${until}`, {
        'data-item': item,
        'data-served-by': servedBy,
      }),
    );
  }
  container.replaceChildren(
    line('p', status.online ? `Licensed via ${via}` : `Offline (next call goes to ${via})`, {
      'data-testid': 'service',
      'data-active-service': status.activeService,
    }),
    list,
    ...(status.error?.message
      ? [line('p', status.error.message, { role: 'alert', 'data-error-code': status.error.code })]
      : []),
  );
}

/** Shows the license state in `container` and keeps it current; returns a stop function. */
export async function showLicense(
  container: HTMLElement,
  licensing: LicensingBridge,
): Promise<() => void> {
  let changed = false;
  const stop = licensing.onChange((status) => {
    changed = true;
    renderStatus(container, status);
  });
  const first = await licensing.status();
  // A change that arrived meanwhile is newer than this answer.
  if (!changed) renderStatus(container, first);
  return stop;
}
