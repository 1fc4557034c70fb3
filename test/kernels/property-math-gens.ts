// Seeded random generators of the math kernels (HARD_SWISH, LOG_SOFTMAX, TANH, ELU, PRELU,
// L2_NORMALIZATION, RESIZE_NEAREST_NEIGHBOR, RESIZE_BILINEAR) for property.test.ts, which passes
// in its own case builders: random shapes, ranks, scales and zero points, broadcast alphas
// (constant or not), resize sizes (up and down) and every align_corners / half_pixel_centers pair,
// float32 LOG_SOFTMAX.
import type { BuiltinKind, DType, OpOptionsMap } from '../../src/ir/index.ts';
import type { ConformanceSetup } from '../../src/sim/index.ts';

type Rng = () => number;
interface Q { readonly scale: readonly number[]; readonly zp: readonly number[] }
interface T { readonly dtype: DType; readonly shape: readonly number[]; readonly q?: Q; readonly data?: readonly number[] }

export interface GenHelpers {
  readonly setup: <K extends BuiltinKind>(r: Rng, kind: K, options: OpOptionsMap[K], inputs: readonly (T | null)[], outputs: readonly T[]) => ConformanceSetup;
  readonly int: (r: Rng, lo: number, hi: number) => number;
  readonly q: (r: Rng, lo?: number, hi?: number) => Q;
  readonly shapeOf: (r: Rng, rank: number, hi?: number) => number[];
}

type Gen = (r: Rng) => ConformanceSetup | null;

export function mathGenerators(h: GenHelpers): { readonly [K in BuiltinKind]?: Gen } {
  const { setup, int, q, shapeOf } = h;
  const i8 = (shape: readonly number[], qq: Q): T => ({ dtype: 'int8', shape, q: qq });
  const unary = <K extends 'hardSwish' | 'tanh' | 'elu' | 'logSoftmax' | 'l2Normalization'>(kind: K, options: OpOptionsMap[K], inQ: (r: Rng) => Q, outQ: (r: Rng) => Q): Gen => (r) => {
    const shape = shapeOf(r, int(r, 1, 4), kind === 'logSoftmax' || kind === 'l2Normalization' ? 9 : 5);
    return setup(r, kind, options, [i8(shape, inQ(r))], [i8(shape, outQ(r))]);
  };
  const resize = (kind: 'resizeNearestNeighbor' | 'resizeBilinear'): Gen => (r) => {
    const [n, hh, w, c] = [int(r, 1, 2), int(r, 1, 6), int(r, 1, 6), int(r, 1, 4)];
    const [oh, ow] = [int(r, 1, 11), int(r, 1, 11)];
    const alignCorners = r() < 0.4;
    const halfPixelCenters = r() < 0.4 && !(kind === 'resizeBilinear' && alignCorners);
    const qq = q(r);
    const size: T = { dtype: 'int32', shape: [2], data: [oh, ow] };
    return setup(r, kind, { alignCorners, halfPixelCenters }, [i8([n, hh, w, c], qq), size], [i8([n, oh, ow, c], qq)]);
  };
  return {
    hardSwish: unary('hardSwish', {}, (r) => q(r, 0.004, 0.12), (r) => q(r, 0.004, 0.12)),
    tanh: unary('tanh', {}, (r) => q(r, 0.002, 0.3), (r) => (r() < 0.8 ? { scale: [1 / 128], zp: [0] } : q(r))),
    elu: unary('elu', {}, (r) => q(r, 0.005, 0.1), (r) => q(r, 0.005, 0.1)),
    logSoftmax: (r) => {
      if (r() < 0.7) return unary('logSoftmax', {}, (g) => q(g, 0.01, 0.5), () => ({ scale: [16 / 256], zp: [127] }))(r);
      // float32 (after a DEQUANTIZE): glibc expf / logf.
      const shape = shapeOf(r, int(r, 1, 4), 9);
      return setup(r, 'logSoftmax', {}, [{ dtype: 'float32', shape }], [{ dtype: 'float32', shape }]);
    },
    l2Normalization: unary('l2Normalization', { activation: 'none' }, (r) => q(r, 0.005, 0.1), (r) => (r() < 0.8 ? { scale: [1 / 128], zp: [0] } : q(r))),
    prelu: (r) => {
      const out = shapeOf(r, int(r, 1, 4));
      const alphaShape = out.slice(int(r, 0, out.length - 1)).map((d) => (r() < 0.4 ? 1 : d));
      const count = alphaShape.reduce((a, d) => a * d, 1);
      const alphaQ = q(r, 0.001, 0.01);
      const alpha: T = r() < 0.7
        ? { dtype: 'int8', shape: alphaShape, q: alphaQ, data: Array.from({ length: count }, () => int(r, -128, 127)) }
        : i8(alphaShape, alphaQ);
      return setup(r, 'prelu', {}, [i8(out, q(r, 0.01, 0.1)), alpha], [i8(out, q(r, 0.005, 0.1))]);
    },
    resizeNearestNeighbor: resize('resizeNearestNeighbor'),
    resizeBilinear: resize('resizeBilinear'),
  };
}
