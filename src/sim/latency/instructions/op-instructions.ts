// Instructions one op executes in a TFLM build: its blocks (op-blocks.ts) priced by the build's
// measured block costs. The figure is the op's window as TFLM's profiler sees it: the kernel's Eval,
// the interpreter's per-op glue around it, and the temporary-allocator reset.
import type { Graph } from '../../../ir/index.ts';
import type { ClassCounts } from './block-costs.ts';
import { priceBlocks } from './block-costs.ts';
import type { InstructionBuild } from './builds.ts';
import { forLibc } from './libc-counts.ts';
import { opBlocks } from './op-blocks.ts';

export interface OpInstructions {
  readonly path: string;
  readonly instructions: number;
  readonly classes: ClassCounts;
}

/** `withGlue` false: the kernel alone, as an ahead-of-time engine calls it (TFLM's glue blocks left out). */
export function opInstructions(graph: Graph, opIndex: number, build: InstructionBuild, withGlue = true): OpInstructions {
  const { path, blocks: counted } = opBlocks(graph, opIndex, build.code);
  const all = forLibc(counted, build.libc);
  const blocks = withGlue ? all : Object.fromEntries(Object.entries(all).filter(([k]) => !k.startsWith('glue.') && !k.endsWith('.glueCall')));
  const priced = priceBlocks(blocks, build.costs, `op ${opIndex} on ${build.name}`);
  return { path, instructions: priced.instructions, classes: priced.classes };
}
