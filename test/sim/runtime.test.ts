import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Graph, Model } from '../../src/ir/index.ts';
import { buildZooModel, McusimError } from '../../src/ir/index.ts';
import { preparePlannedModel, randomInputs, runPipeline } from '../../src/optimizer/index.ts';
import type { VectorCase } from '../../src/sim/index.ts';
import { createStorage, getTarget, Runtime, setupVectorCase } from '../../src/sim/index.ts';
import { ORACLE_VECTORS } from '../oracle-paths.ts';

const firstCase = (op: string): VectorCase => JSON.parse(readFileSync(`${ORACLE_VECTORS}/${op}.jsonl`, 'utf8').split('\n')[0] ?? '') as VectorCase;
const codeOf = (f: () => unknown): string | undefined => {
  try {
    f();
  } catch (e) {
    return e instanceof McusimError ? e.code : 'raw';
  }
  return undefined;
};

describe('Runtime', () => {
  const s = setupVectorCase(firstCase('CONV_2D'));

  it('runs at plan offsets and reads tensors back', () => {
    const rt = new Runtime({ graph: s.graph, tensorOffsets: s.tensorOffsets, arenaBytes: s.arenaBytes });
    const out = rt.run(s.inputs);
    expect(Buffer.from(out[0] as Uint8Array).equals(Buffer.from(s.expected[0] as Uint8Array))).toBe(true);
  });

  it('reports bad inputs and broken constraints with codes', () => {
    const rt = new Runtime({ graph: s.graph, tensorOffsets: s.tensorOffsets, arenaBytes: s.arenaBytes });
    expect(codeOf(() => rt.run([new Uint8Array(1)]))).toBe('E_USAGE');
    expect(codeOf(() => rt.run([]))).toBe('E_USAGE');
    const op = s.graph.ops[0];
    const bad = { ...s.graph, ops: [{ ...op, options: { ...(op as { options: object }).options, strideH: 0, activation: "tanh" } }] } as unknown as Graph;
    expect(codeOf(() => new Runtime({ graph: bad, tensorOffsets: s.tensorOffsets, arenaBytes: s.arenaBytes }))).toBe('E_KERNEL_CONSTRAINT');
    const custom = { ...s.graph, ops: [{ kind: 'custom', customCode: 'NoSuchOp', customOptions: new Uint8Array(0), inputs: op!.inputs, outputs: op!.outputs }] } as Graph;
    expect(codeOf(() => new Runtime({ graph: custom, tensorOffsets: s.tensorOffsets, arenaBytes: s.arenaBytes }))).toBe('E_MODEL_UNSUPPORTED_OP');
  });
});

describe('Runtime on a TinySeg graph (Tiny U-Net, compressed spill on the external flash)', () => {
  const unet = buildZooModel('tiny-unet');
  /** Outputs, a digest and count of the traced events, and the storage log of one seeded traced run. */
  const tracedRun = (model: Model, kernels: 'wasm' | 'js') => {
    const pm = preparePlannedModel(model);
    const rt = new Runtime({
      graph: pm.graph, tensorOffsets: pm.tensorOffsets, scratchOffsets: pm.scratchOffsets, arenaBytes: pm.arenaBytes,
      storage: createStorage(getTarget('nicla-vision'), 'external'), compress: true, kernels,
    });
    const digest = createHash('sha256');
    let events = 0;
    const outputs = rt.run(randomInputs(pm.graph, 1), {
      trace: (op, log, count) => {
        events += count;
        digest.update(new Uint8Array([op & 0xff, op >> 8]));
        digest.update(new Uint8Array(log.buffer, log.byteOffset, 8 * count));
      },
    });
    // WebAssembly kernels keep the arena at the start of their linear memory (whole 64 KiB pages).
    const onWasm = rt.arena.bytes.buffer.byteLength % 65536 === 0 && rt.arena.bytes.buffer.byteLength > pm.arenaBytes;
    return { outputs: outputs.map((o) => Buffer.from(o).toString('hex')), events, digest: digest.digest('hex'), log: rt.spillStore?.log, onWasm };
  };

  it.each([true, false])('WebAssembly kernels (storage ops on JS) = JS kernels: outputs, every event, storage log (fused fetching %s)', (fused) => {
    const model = runPipeline(unet, ['tinyseg'], { flags: fused ? {} : { fusedFetching: false } }).model;
    expect(model.graph.ops.some((op) => op.kind === (fused ? 'fetchingConv2d' : 'fetching'))).toBe(true);
    const wasm = tracedRun(model, 'wasm');
    const js = tracedRun(model, 'js');
    expect(wasm.onWasm).toBe(true);
    expect(js.onWasm).toBe(false);
    expect(wasm.events).toBeGreaterThan(1_000_000);
    expect({ ...wasm, onWasm: null }).toEqual({ ...js, onWasm: null });
    expect(wasm.log?.some((e) => e.direction === 'spill' && e.storedBytes < e.rawBytes)).toBe(true);
  });
});
