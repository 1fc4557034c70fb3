// mcusim's cmsis-nn specs on the plain-C path (cortex-m3) against what ARM's CMSIS-NN 4ab83cc3
// arm_transpose_s8, arm_pad_s8, arm_maximum_s8 / arm_minimum_s8 and arm_svdf_s8 /
// arm_svdf_state_s16_s8 returned, compiled for the host with gcc and recorded once
// (testdata/real-builds/cmsis-nn/host-c.jsonl, README there). Each case is replayed in its recorded
// layout: transpose and maximum / minimum also with the output overlapping the input (at and beyond
// O_s: equal clobbered bytes mean equal access order), svdf's output and final state.
import { describe, expect, it } from 'vitest';
import { byteSize } from '../../../src/ir/index.ts';
import type { KernelSpec } from '../../../src/kernels/index.ts';
import { compileKernel, kernelRegistry, makeArenaViews } from '../../../src/kernels/index.ts';
import type { OpCase } from './helpers.ts';
import { instanceFor } from './helpers.ts';
import type { GraphJson } from './recorded.ts';
import { fromB64, graphFromJson, readJsonl } from './recorded.ts';

/** A line of host-c.jsonl: the case, its layout (tensor -> offset; null = one after the other) and the C's bytes of each `read` tensor. */
interface HostCaseJson {
  readonly id: number;
  readonly group: string;
  readonly kind: 'transpose' | 'pad' | 'maximum' | 'minimum' | 'svdf';
  readonly graph: GraphJson;
  readonly inputs: Readonly<Record<string, string>>;
  readonly offsets: Readonly<Record<string, number>> | null;
  readonly read: readonly number[];
  readonly real: readonly string[];
}

const PLAIN = kernelRegistry('cmsis-nn', 'cortex-m3');
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const CASES = readJsonl<HostCaseJson>('host-c.jsonl');

/** The spec run on `c` in `offsets` (zeroed arena, inputs written at their offsets); the bytes of `read` afterwards. */
function runLaidOut(spec: KernelSpec, c: OpCase, read: readonly number[], offsets?: ReadonlyMap<number, number>): string[] {
  const { inst, tensorOffsets, arenaBytes } = instanceFor(spec, c, offsets);
  const views = makeArenaViews(new ArrayBuffer(arenaBytes));
  for (const [t, b] of c.inputs) views.u8.set(b, tensorOffsets[t] ?? 0);
  compileKernel(inst, views).run();
  return read.map((t) => {
    const x = c.graph.tensors[t]!;
    const o = tensorOffsets[t] ?? 0;
    return hex(views.u8.slice(o, o + byteSize(x.dtype, x.shape)));
  });
}

describe('recorded CMSIS-NN data ops (host gcc, plain-C path) replayed on the cmsis-nn specs', () => {
  it.each(['transpose', 'maximum', 'minimum', 'pad', 'svdf'] as const)('%s: the spec gives the bytes the C gave, in every recorded layout', (kind) => {
    const cases = CASES.filter((c) => c.kind === kind);
    expect(cases.length).toBeGreaterThan(20);
    const failures: string[] = [];
    let overlapped = 0;
    for (const rec of cases) {
      const graph = graphFromJson(rec.graph, `${kind}-host-c`);
      const c: OpCase = { graph, inputs: new Map(Object.entries(rec.inputs).map(([t, b]) => [Number(t), fromB64(b)])), output: graph.outputs[0]! };
      const offsets = rec.offsets === null ? undefined : new Map(Object.entries(rec.offsets).map(([t, o]) => [Number(t), o]));
      const got = runLaidOut(PLAIN.specs[kind] as KernelSpec, c, rec.read, offsets);
      const real = rec.real.map((b) => hex(fromB64(b)));
      if (got.join('\n') !== real.join('\n')) failures.push(`${rec.group} case ${rec.id} (layout ${JSON.stringify(rec.offsets)}): spec ${got.join(' / ')}, C ${real.join(' / ')}`);
      const inAt = offsets?.get(graph.inputs[0]!);
      const outAt = offsets?.get(c.output);
      const inBytes = c.inputs.get(graph.inputs[0]!)?.length ?? 0;
      const out = graph.tensors[c.output]!;
      if (inAt !== undefined && outAt !== undefined && inAt < outAt + byteSize(out.dtype, out.shape) && outAt < inAt + inBytes) overlapped++;
    }
    expect(failures.slice(0, 10).join('\n')).toBe('');
    if (kind === 'transpose' || kind === 'maximum' || kind === 'minimum') expect(overlapped, `${kind}: overlapped layouts`).toBeGreaterThan(10);
  });
});
