// The op-kind -> kernel spec table. Adding an op = one spec file in specs/ plus one line here.
import type { BuiltinKind } from '../ir/index.ts';
import type { KernelSpec } from './spec.ts';
import { conv2dSpec } from './specs/conv2d.ts';
import { depthwiseConv2dSpec } from './specs/depthwise-conv2d.ts';
import { fullyConnectedSpec } from './specs/fully-connected.ts';
import { relu6Spec, reluSpec } from './specs/relu.ts';

export type KernelRegistry = { readonly [K in BuiltinKind]?: KernelSpec<K> };

export const KERNELS: KernelRegistry = {
  conv2d: conv2dSpec,
  depthwiseConv2d: depthwiseConv2dSpec,
  fullyConnected: fullyConnectedSpec,
  relu: reluSpec,
  relu6: relu6Spec,
};

export function kernelSpecOf<K extends BuiltinKind>(kind: K): KernelSpec<K> | undefined {
  return KERNELS[kind] as KernelSpec<K> | undefined;
}
