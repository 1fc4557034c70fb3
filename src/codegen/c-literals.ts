// C99 text for data: constant bytes as concatenated hex string literals (gcc parses a 3.5 MB
// string literal ~20x faster and in far less memory than a 3.5 M-element initializer list),
// int32 tables as decimal lists, and identifiers / comments made safe from tensor names.

const HEX = Array.from({ length: 256 }, (_, b) => `\\x${b.toString(16).padStart(2, '0')}`);

/** Bytes per string-literal line (4 source chars per byte). */
const BYTES_PER_LINE = 64;

/**
 * The initializer of a `const uint8_t NAME[] = ...;` holding `bytes`: adjacent string literals,
 * one hex escape per byte. The array gets one trailing NUL byte (a string literal always has
 * room for it; sizing the array exactly would trip -Wunterminated-string-initialization).
 */
export function byteStringLiteral(bytes: Uint8Array, indent = '  '): string {
  if (bytes.length === 0) return `${indent}""`;
  const lines: string[] = [];
  for (let i = 0; i < bytes.length; i += BYTES_PER_LINE) {
    const end = Math.min(bytes.length, i + BYTES_PER_LINE);
    let line = '';
    for (let j = i; j < end; j++) line += HEX[bytes[j] as number];
    lines.push(`${indent}"${line}"`);
  }
  return lines.join('\n');
}

/** An int32 literal valid in C for every int32 (INT32_MIN has no literal of its own). */
export function int32Literal(v: number): string {
  return v === -2147483648 ? '(-2147483647 - 1)' : String(v);
}

/** `{ a, b, ... }` with 16 values per line; `{ 0 }` for an empty list (C has no empty arrays). */
export function int32List(values: ArrayLike<number>, indent = '  '): string {
  if (values.length === 0) return '{ 0 }';
  const rows: string[] = [];
  for (let i = 0; i < values.length; i += 16) {
    rows.push(Array.from(Array.prototype.slice.call(values, i, i + 16) as number[], int32Literal).join(', '));
  }
  return rows.length === 1 ? `{ ${rows[0] ?? ''} }` : `{\n${rows.map((r) => `${indent}${r}`).join(',\n')}\n}`;
}

/** Text safe inside a C block comment on one line. */
export function commentText(s: string): string {
  return s.replace(/\*\//g, '* /').replace(/[\r\n]+/g, ' ').replace(/[^\x20-\x7e]/g, '?');
}
