// Text helpers shared by every SVG picture (plan, trace, timeline, spill sweep, report): XML
// escaping, eliding long names from the start so the distinguishing tail shows
// (`…/Conv2d_13_pointwise/Relu6`), wrapping titles to a width instead of clipping them, byte
// counts in B/KB/MB and 1-2-5 axis steps. Pure string functions; widths are estimated from an
// average glyph width (no font metrics exist outside a browser).

/** Average advance of one character, in font-size units (sans-serif and monospace alike, rounded up). */
const CHAR_EM = 0.56;

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** Characters of `fontSize` text that fit in `px` pixels. */
export function charsThatFit(px: number, fontSize: number): number {
  return Math.max(0, Math.floor(px / (fontSize * CHAR_EM)));
}

/** Estimated pixel width of `text` at `fontSize`. */
export function textWidthPx(text: string, fontSize: number): number {
  return text.length * fontSize * CHAR_EM;
}

/** `name` in at most `max` characters, cut from the start: `…/Conv2d_13_pointwise/Relu6`. */
export function elideStart(name: string, max: number): string {
  if (name.length <= max) return name;
  if (max <= 1) return max === 1 ? '…' : '';
  return `…${name.slice(name.length - (max - 1))}`;
}

/**
 * `text` broken into lines of at most `max` characters, at spaces, commas or slashes where
 * possible (a path breaks after a `/`), hard-cut otherwise.
 */
export function wrapText(text: string, max: number): string[] {
  const width = Math.max(8, max);
  const lines: string[] = [];
  let rest = text;
  while (rest.length > width) {
    const head = rest.slice(0, width + 1);
    const at = Math.max(head.lastIndexOf(' '), head.lastIndexOf(','), head.lastIndexOf('/'));
    const cut = at >= width / 3 ? at + 1 : width;
    lines.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest.length > 0 || lines.length === 0) lines.push(rest);
  return lines;
}

/** `<text>` lines of a wrapped title starting at baseline `y`; returns the SVG and the y below it. */
export function svgTextLines(text: string, x: number, y: number, widthPx: number, fontSize: number, attrs = ''): { readonly svg: string; readonly bottom: number } {
  const lines = wrapText(text, charsThatFit(widthPx, fontSize));
  const lineH = Math.round(fontSize * 1.3);
  const svg = lines.map((l, i) => `<text x="${x}" y="${y + i * lineH}" font-size="${fontSize}"${attrs ? ` ${attrs}` : ''}>${escapeXml(l)}</text>`).join('\n');
  return { svg, bottom: y + (lines.length - 1) * lineH };
}

/** Human byte count: 512 B, 12.5 KB, 2.3 MB (1 KB = 1024 B). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${trimNumber(bytes / 1024)} KB`;
  return `${trimNumber(bytes / (1024 * 1024))} MB`;
}

function trimNumber(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(1);
}

/** A 1-2-5 step giving about `target` ticks over `span` (at least `min`). */
export function niceTickStep(span: number, target: number, min = 1): number {
  const raw = Math.max(min, span / Math.max(1, target));
  const pow = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5]) if (m * pow >= raw - 1e-12) return m * pow;
  return 10 * pow;
}

/** A coordinate as SVG text: integers plain, others with two decimals. */
export function svgNum(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(2);
}
