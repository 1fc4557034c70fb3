// Output sizes and padding of windowed ops, as TFLM's ComputeOutSize /
// ComputePaddingHeightWidth (tensorflow/lite/kernels/padding.h) compute them.
import type { Padding } from './graph.ts';

export function effectiveFilterSize(filter: number, dilation: number): number {
  return (filter - 1) * dilation + 1;
}

/** Output length along one spatial axis (0 when the window does not fit). */
export function convOutputSize(padding: Padding, inSize: number, filter: number, stride: number, dilation = 1): number {
  const eff = effectiveFilterSize(filter, dilation);
  if (stride <= 0) return 0;
  return padding === 'same' ? Math.floor((inSize + stride - 1) / stride) : Math.max(0, Math.floor((inSize + stride - eff) / stride));
}

/** Leading padding along one axis, plus the odd `offset` TFLM adds on the trailing side. */
export function convPadding(stride: number, dilation: number, inSize: number, filter: number, outSize: number): { before: number; offset: number } {
  const eff = effectiveFilterSize(filter, dilation);
  const total = Math.max((outSize - 1) * stride + eff - inSize, 0);
  return { before: Math.floor(total / 2), offset: total % 2 };
}
