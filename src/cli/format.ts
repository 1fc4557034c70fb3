// Plain-text helpers for command output: aligned tables, shapes and byte counts.
import { formatBytes } from '../optimizer/index.ts';

export type Cell = string | number;

/** Columns padded to their widest cell; numbers right-aligned, text left-aligned. */
export function renderTable(headers: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const widths = headers.map((h, c) => rows.reduce((w, r) => Math.max(w, String(r[c] ?? '').length), h.length));
  const numeric = headers.map((_, c) => rows.length > 0 && rows.every((r) => typeof r[c] === 'number'));
  const line = (cells: readonly Cell[]): string =>
    cells
      .map((cell, c) => {
        const s = String(cell);
        const w = widths[c] ?? s.length;
        return numeric[c] ? s.padStart(w) : s.padEnd(w);
      })
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(headers), rule, ...rows.map(line)].join('\n');
}

export function formatShape(shape: readonly number[] | null): string {
  if (shape === null) return '-';
  return shape.length === 0 ? 'scalar' : shape.join('x');
}

/** "55296 B (54.0 KB)". */
export function bytesAndKb(bytes: number): string {
  return `${bytes} B (${(bytes / 1024).toFixed(bytes < 1024 ? 2 : 1)} KB)`;
}

export function truncate(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

export { formatBytes };

/** "TFLM (cortex-m, cmsis-nn kernels for cortex-m7)" / "mcusim C port (cortex-m, reference kernels)": whose arena a figure is. */
export function describeRuntime(runtime: 'tflm' | 'mcusim', arch: string, kernels: string, cpu: string | null): string {
  const who = runtime === 'tflm' ? 'TFLM' : 'mcusim C port';
  return `${who} (${arch}, ${kernels} kernels${cpu === null ? '' : ` for ${cpu}`})`;
}
