// A made-up closed-form safe overlap O_s for depthwiseConv2d, in the spirit of the DMO paper's
// §III-D: once output row oy is written, every later read is at or after the first input row its
// window touches, so the input may start OB + min over rows (first read - end of the row's
// writes) bytes before the output's end. `ignorePadding` forgets that 'same' padding shifts the
// window up by padTop rows: a deliberately unsafe variant.
export function depthwiseOverlap(op, { ignorePadding = false } = {}) {
  const [batches, height, width, channels] = op.input;
  const [, outHeight, outWidth, outChannels] = op.output;
  const [filterHeight] = op.filter;
  const [strideHeight] = op.stride;
  const [dilationHeight] = op.dilation;
  const window = (filterHeight - 1) * dilationHeight + 1;
  const padTop = op.padding === 'same' && !ignorePadding ? Math.max(0, Math.floor(((outHeight - 1) * strideHeight + window - height) / 2)) : 0;
  let slack = Infinity;
  for (let b = 0; b < batches; b++) {
    for (let oy = 0; oy < outHeight; oy++) {
      const firstRead = (b * height + Math.max(0, oy * strideHeight - padTop)) * width * channels;
      const rowWritesEnd = (b * outHeight + oy + 1) * outWidth * outChannels;
      slack = Math.min(slack, firstRead - rowWritesEnd);
    }
  }
  return Math.max(0, Math.min(op.outputBytes, op.outputBytes + slack));
}
