// Block counts: how many times each straight-line piece of a kernel's compiled code runs for one op.
// A key is `function.block` (the C function the block belongs to, then the loop or branch it is);
// `glue.KIND` holds what TFLM spends around the kernel (Eval, GetEvalInput/Output, the wrapper's
// argument structs, the temporary-allocator reset). Counts come from the loop bounds of the C code
// (counters in this folder); what one execution of a block costs comes from the build (coefficients).

export type Blocks = Record<string, number>;

/** Adds `n` executions of block `key` (zero counts are left out). */
export function addBlock(b: Blocks, key: string, n: number): void {
  if (n !== 0) b[key] = (b[key] ?? 0) + n;
}

/** The function part of a block key (`arm_nn_mat_mult_nt_t_s8.k16` -> `arm_nn_mat_mult_nt_t_s8`). */
export function blockFunction(key: string): string {
  const dot = key.indexOf('.');
  return dot < 0 ? key : key.slice(0, dot);
}

/** Per output position along one axis: the first and last (exclusive) window taps inside the input. */
export interface AxisWindow {
  readonly start: number;
  readonly end: number;
}

/** Window taps of every output position along one axis (stride, dilation, padding before). */
export function axisWindows(outSize: number, inSize: number, k: number, stride: number, dilation: number, padBefore: number): AxisWindow[] {
  const w: AxisWindow[] = [];
  for (let o = 0; o < outSize; o++) {
    const base = o * stride - padBefore;
    let start = 0;
    while (start < k && base + start * dilation < 0) start++;
    let end = k;
    while (end > start && base + (end - 1) * dilation >= inSize) end--;
    w.push({ start, end: Math.max(start, end) });
  }
  return w;
}

/** Sum over positions of f(window, index). */
export function sumAxis(ws: readonly AxisWindow[], f: (w: AxisWindow, i: number) => number): number {
  let s = 0;
  ws.forEach((w, i) => { s += f(w, i); });
  return s;
}

export const floorDiv = (a: number, b: number): number => Math.floor(a / b);

/** The product of a shape's dims (1 for none). */
export const prod = (xs: readonly number[]): number => xs.reduce((a, d) => a * d, 1);

/**
 * A loop of `n` passes that gcc unrolled four times with the n % 4 leftover passes entered first:
 * `key.x4` (unrolled passes), `key.r1` / `key.r2` / `key.r3` (which leftover entry) and `key.any`.
 */
export function addUnrolled4(b: Blocks, key: string, n: number, times = 1): void {
  addBlock(b, `${key}.x4`, Math.floor(n / 4) * times);
  const r = n % 4;
  if (r > 0) addBlock(b, `${key}.r${r}`, times);
  if (n > 0) addBlock(b, `${key}.any`, times);
}
