// SpaceToDepth and DepthToSpace: TFLM reference_ops::SpaceToDepth walks the INPUT in NHWC order
// and writes output[b, h / bs, w / bs, d + ((h % bs) * bs + w % bs) * D_in]; DepthToSpace walks the
// OUTPUT in NHWC order and reads input[b, h / bs, w / bs, d + ((h % bs) * bs + w % bs) * D_out].
// Both are 4-D with block_size >= 1 (space_to_depth.cc / depth_to_space.cc Prepare); int8 here.
import { For, Let, Store } from '../nest.ts';
import type { BlockSizeOptions } from '../../ir/index.ts';
import type { KernelSpec, OpContext } from '../spec.ts';
import { constraint, unaryPrepared } from './common.ts';
import { sameDtype, sameShape } from './copy-common.ts';
import { TFLITE_DEPTH_TO_SPACE_PARAMS, TFLITE_SPACE_TO_DEPTH_PARAMS, stock, writableDimsBytes } from '../tflm-memory.ts';

type Kind = 'spaceToDepth' | 'depthToSpace';
type Ctx = Pick<OpContext, 'input' | 'output'> & { readonly op: { readonly options: BlockSizeOptions } };

function expected(c: Ctx, toSpace: boolean): number[] | null {
  const x = c.input(0)?.shape ?? [];
  const b = c.op.options.blockSize;
  if (x.length !== 4 || !Number.isInteger(b) || b < 1) return null;
  const [n = 0, h = 0, w = 0, d = 0] = x;
  if (toSpace) return d % (b * b) === 0 ? [n, h * b, w * b, d / (b * b)] : null;
  return h % b === 0 && w % b === 0 ? [n, h / b, w / b, d * b * b] : null;
}

function blockSpec<K extends Kind>(kind: K, toSpace: boolean): KernelSpec<K> {
  return {
    kind,
    // No Init; Prepare copies the output dims to the persistent arena.
    tflmPersistent: {
      ...stock<K>(toSpace ? TFLITE_DEPTH_TO_SPACE_PARAMS : TFLITE_SPACE_TO_DEPTH_PARAMS, null),
      prepareBuffers: (c) => [writableDimsBytes(c.output(0))],
    },
    constraints: [
      constraint(`${kind}.types`, 'input and output must be int8 (TFLM evaluates float32 and int8 only)', (c) => c.input(0)?.dtype === 'int8' && sameDtype(c.input(0), c.output(0))),
      constraint(`${kind}.shape`, toSpace
        ? 'input must be 4-D with depth a multiple of block_size^2; output [N, H*bs, W*bs, D/bs^2]'
        : 'input must be 4-D with height and width multiples of block_size; output [N, H/bs, W/bs, D*bs^2]',
      (c) => sameShape(expected(c, toSpace) ?? [], c.output(0).shape)),
    ],
    prepare(c: Ctx) {
      // The walked tensor's dims (n, h, w, d) and the other one's (H, W, D).
      const [walk, other] = toSpace ? [c.output(0).shape, c.input(0)?.shape ?? []] : [c.input(0)?.shape ?? [], c.output(0).shape];
      const [n = 0, h = 0, w = 0, d = 0] = walk;
      const [, oh = 0, ow = 0, od = 0] = other;
      return unaryPrepared({ n, h, w, d, oh, ow, od, bs: c.op.options.blockSize });
    },
    body: [
      For('b', '0', 'n', [
        For('y', '0', 'h', [
          Let('oy', 'b * oh + y / bs'),
          For('x', '0', 'w', [
            Let('ox', 'oy * ow + x / bs'),
            Let('walkAt', '((b * h + y) * w + x) * d'),
            Let('otherAt', 'ox * od + ((y % bs) * bs + x % bs) * d'),
            For('z', '0', 'd', [toSpace ? Store('output', 'walkAt + z', 'input[otherAt + z]') : Store('output', 'otherAt + z', 'input[walkAt + z]')]),
          ]),
        ]),
      ]),
    ],
  };
}

export const spaceToDepthSpec: KernelSpec<'spaceToDepth'> = blockSpec('spaceToDepth', false);
export const depthToSpaceSpec: KernelSpec<'depthToSpace'> = blockSpec('depthToSpace', true);
