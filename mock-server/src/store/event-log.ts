import { type FileHandle, mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { JSON_DEPTH_CAP, measureJsonDepth } from '../json-depth.js';

/** One line of the log: its number (from 1) and its parsed JSON. */
export interface LogRecord {
  line: number;
  value: unknown;
}

/** Name of the event log inside the data dir. */
export const EVENT_LOG_FILE = 'events.log';

/**
 * An append-only log of JSON lines: one line per committed write (a whole batch, so a batch is
 * on disk entirely or not at all) or per reset. A line counts once its `\n` is on disk; a torn
 * unterminated last line (a crash mid-write, before the 201) is dropped when the log is opened.
 * The event store keeps `events.log` in it, the standby its outbox journal.
 */
export class EventLog {
  readonly #file: FileHandle;
  #size: number;
  /** Path of the log file, for messages. */
  readonly path: string;

  private constructor(file: FileHandle, size: number, path: string) {
    this.#file = file;
    this.#size = size;
    this.path = path;
  }

  /**
   * Opens (or creates) `<dataDir>/<file>` (default `events.log`) and returns it with the parsed
   * records in order, each with its line number. Throws when a terminated line is not JSON: that
   * is corruption, not a torn write.
   */
  static async open(
    dataDir: string,
    file: string = EVENT_LOG_FILE,
  ): Promise<{ log: EventLog; records: LogRecord[] }> {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    const path = join(dataDir, file);
    const handle = await open(path, 'a+', 0o600);
    try {
      const bytes = await handle.readFile();
      const end = bytes.lastIndexOf(0x0a) + 1;
      if (end < bytes.length) {
        // Torn tail: its write never completed, so no client was told it was stored.
        await handle.truncate(end);
        await handle.sync();
      }
      const records: LogRecord[] = [];
      const text = bytes.subarray(0, end).toString('utf8');
      let lineNo = 0;
      for (const line of text.split('\n')) {
        lineNo++;
        if (line === '') continue;
        // Deeper than anything the server writes: parsing is safe, re-serialising would not be.
        if (measureJsonDepth(line, JSON_DEPTH_CAP + 2) > JSON_DEPTH_CAP + 2) {
          throw new Error(`${path}: line ${lineNo} nests too deep; the event log is corrupt`);
        }
        try {
          records.push({ line: lineNo, value: JSON.parse(line) });
        } catch (err) {
          throw new Error(`${path}: line ${lineNo} is not JSON; the event log is corrupt`, {
            cause: err,
          });
        }
      }
      await syncDir(dataDir);
      return { log: new EventLog(handle, end, path), records };
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  /** Bytes in the log. */
  get size(): number {
    return this.#size;
  }

  /**
   * Appends `lines` (each ending in `\n`) and fsyncs (unless `sync` is false: lines whose loss in
   * a crash costs nothing). On failure the file is cut back to its previous length so a partial
   * write cannot glue onto the next record.
   */
  async append(lines: string, options: { sync?: boolean } = {}): Promise<void> {
    const data = Buffer.from(lines, 'utf8');
    try {
      await this.#file.write(data);
      if (options.sync !== false) await this.#file.sync();
      this.#size += data.length;
    } catch (err) {
      await this.#file.truncate(this.#size).catch(() => undefined);
      throw err;
    }
  }

  /** Empties the log (durably): for a log whose every record is spent. */
  async truncate(): Promise<void> {
    await this.#file.truncate(0);
    await this.#file.sync();
    this.#size = 0;
  }

  /** Closes the file. */
  async close(): Promise<void> {
    await this.#file.close();
  }
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
