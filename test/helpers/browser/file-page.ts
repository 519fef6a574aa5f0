import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** A page written to a temporary folder, opened as `file://` (an Electron `loadFile` window). */
export interface FilePage {
  /** `file:///.../index.html`. */
  url: string;
  /** Removes the folder. */
  close(): Promise<void>;
}

/**
 * Writes `script` (an ES module, e.g. from `bundlePage`) inline into an `index.html` in a new
 * temporary folder. Inline, because Chromium refuses to load a module script from another
 * `file://` URL (its origin is opaque). The page's requests then carry `Origin: null`.
 */
export async function writeFilePage(script: string): Promise<FilePage> {
  const dir = await mkdtemp(join(tmpdir(), 'standby-file-page-'));
  const inline = script.replaceAll('</script', '<\\/script');
  const html = `<!doctype html><html><head><meta charset="utf-8"><script type="module">${inline}</script></head><body></body></html>`;
  const file = join(dir, 'index.html');
  await writeFile(file, html);
  return { url: pathToFileURL(file).href, close: () => rm(dir, { recursive: true, force: true }) };
}
