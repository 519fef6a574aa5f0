// Test helper: talks to a server over a plain TCP socket, for requests fetch cannot make
// (no Host, CONNECT, broken HTTP, a body that never finishes).
import { connect, type Socket } from 'node:net';

/** An answer read from a raw socket. */
export interface RawAnswer {
  /** Everything the server sent before closing (or before `end()`). */
  text: string;
  /** The status code of the first status line, or 0 when none arrived. */
  status: number;
  /** The headers of the first answer, lower-case names. */
  headers: Record<string, string>;
  /** The body of the first answer (after the blank line; chunked bodies are decoded). */
  body: string;
  /** A socket error (e.g. ECONNRESET), if one ended the exchange. */
  error?: string;
}

/** Splits the text of one HTTP/1.1 answer into status, headers and body. */
export function parseRawAnswer(text: string, error?: string): RawAnswer {
  const end = text.indexOf('\r\n\r\n');
  const head = end < 0 ? text : text.slice(0, end);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0)
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = end < 0 ? '' : text.slice(end + 4);
  if (headers['transfer-encoding'] === 'chunked') {
    let decoded = '';
    let rest = body;
    for (;;) {
      const lineEnd = rest.indexOf('\r\n');
      const size = Number.parseInt(rest.slice(0, lineEnd), 16);
      if (!(size > 0)) break;
      decoded += rest.slice(lineEnd + 2, lineEnd + 2 + size);
      rest = rest.slice(lineEnd + 2 + size + 2);
    }
    body = decoded;
  } else if (headers['content-length'] !== undefined) {
    body = body.slice(0, Number(headers['content-length']));
  }
  return { text, status, headers, body, ...(error ? { error } : {}) };
}

/** Options of {@link sendRaw}. */
export interface SendRawOptions {
  /**
   * Half-close after writing. Default false: Node aborts a request whose client half-closes
   * before the answer, so send `Connection: close` and let the server close instead.
   */
  end?: boolean;
  /** Called once connected, to write more over time; `data` is written first. */
  onConnect?: (socket: Socket) => void;
}

/**
 * Connects to `port` on 127.0.0.1, writes `data`, and resolves with what the server answers
 * once the server closes the connection (or resets it): send `Connection: close`.
 */
export function sendRaw(
  port: number,
  data: string | Buffer,
  options: SendRawOptions = {},
): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(data);
      if (options.end) socket.end();
      options.onConnect?.(socket);
    });
    let text = '';
    let error: string | undefined;
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      error = err.code ?? err.message;
    });
    socket.on('close', () => resolve(parseRawAnswer(text, error)));
  });
}
