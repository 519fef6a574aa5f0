import { decodeBase64, encodeBase64 } from './base64.js';

/** One PEM block: its label (`PUBLIC KEY`, `CERTIFICATE`, ...) and DER bytes. */
export interface PemBlock {
  label: string;
  der: Uint8Array<ArrayBuffer>;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

/**
 * Every PEM block in `text`, in order. Tolerates CRLF, any line wrapping and surrounding text.
 * Throws a TypeError when there is no block or a block's body is not base64.
 */
export function parsePemBlocks(text: string): PemBlock[] {
  const blocks: PemBlock[] = [];
  for (const match of text.matchAll(PEM_BLOCK)) {
    const label = match[1]!;
    // RFC 7468 allows (legacy) "Name: value" headers before the body; skip them.
    const body = match[2]!
      .split(/\r?\n|\r/)
      .filter((line) => !line.includes(':'))
      .join('');
    try {
      blocks.push({ label, der: decodeBase64(body) });
    } catch {
      throw new TypeError(`the PEM block "${label}" is not valid base64`);
    }
  }
  if (blocks.length === 0) throw new TypeError('no PEM block found');
  return blocks;
}

/** PEM text with 64-character base64 lines, `\n` line ends and one trailing `\n`. */
export function formatPem(label: string, der: Uint8Array | ArrayBuffer): string {
  const base64 = encodeBase64(der);
  const lines = base64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
