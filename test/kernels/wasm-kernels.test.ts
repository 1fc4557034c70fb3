// WasmLowerings: lowerings recorded while one runtime is prepared, cloned as a worker thread gets
// them and replayed by another runtime of the same model: the replay hands back the records
// themselves (nothing is lowered again), the runs give the same output bytes and trace events as a
// runtime that lowered its own, and a record is never applied to another model's instance.
import { describe, expect, it } from 'vitest';
import { buildZooModel, InternalError } from '../../src/ir/index.ts';
import type { KernelInstance } from '../../src/kernels/index.ts';
import { For, lowerWasm, Store, WasmLowerings, WasmUnsupported } from '../../src/kernels/index.ts';
import type { PlannedModel } from '../../src/optimizer/index.ts';
import { preparePlannedModel, randomInputs, runPlanned } from '../../src/optimizer/index.ts';
import { collectTrace } from './replay-helpers.ts';

const kws = buildZooModel('ds-cnn-kws');

/** Outputs of seed 3 and the trace bytes of a traced run of seed 4. */
function outcome(pm: PlannedModel): { readonly outputs: readonly Uint8Array[]; readonly trace: Buffer } {
  const outputs = runPlanned(pm, { inputs: randomInputs(pm.graph, 3) }).outputs;
  const t = collectTrace();
  runPlanned(pm, { inputs: randomInputs(pm.graph, 4), trace: t.sink });
  return { outputs, trace: t.bytes() };
}

describe('WasmLowerings', () => {
  const recorder = new WasmLowerings();
  const recorded = preparePlannedModel(kws, { verify: false, wasmLowering: recorder.lower });
  recorder.lowerTraced(recorded.runtime.instances);
  // What a worker receives: a structured clone (the compiled modules are shared, not copied).
  const shared = structuredClone(recorder.share());

  it('records fast and traced code of every op, with its compiled module', () => {
    const ops = kws.graph.ops.length;
    expect(shared.filter((r) => r.mode === 'fast')).toHaveLength(ops);
    expect(shared.filter((r) => r.mode === 'traced')).toHaveLength(ops);
    for (const r of shared) {
      expect(r.lowered).not.toBeNull();
      expect(Object.prototype.toString.call(r.module)).toBe('[object WebAssembly.Module]');
      const inst = recorded.runtime.instances[r.opIndex] as KernelInstance;
      expect(r.lowered).toEqual(lowerWasm(inst, r.mode));
    }
  });

  it('replays the records it was given instead of lowering, and the runs are the same', () => {
    const replay = new WasmLowerings(shared);
    const pm = preparePlannedModel(kws, { verify: false, wasmLowering: replay.lower });
    for (const r of shared) expect(replay.lower(pm.runtime.instances[r.opIndex] as KernelInstance, r.mode)).toBe(r.lowered);
    const own = preparePlannedModel(kws, { verify: false });
    const a = outcome(own);
    const b = outcome(pm);
    expect(b.outputs).toEqual(a.outputs);
    expect(b.trace.equals(a.trace)).toBe(true);
  });

  it('refuses a record made from another model', () => {
    const other = preparePlannedModel(buildZooModel('cifar10-cnn'), { verify: false });
    const replay = new WasmLowerings(shared);
    expect(() => replay.lower(other.runtime.instances[0] as KernelInstance, 'fast')).toThrow(InternalError);
  });

  it('records an instance WebAssembly does not lower, and replays the refusal', () => {
    const inst: KernelInstance = {
      name: 'wide', opIndex: 0, nest: [For('i', '0', '2', [Store('out', 'i', 'i')])], flags: {}, scalars: {}, arrays: {},
      buffers: { out: { dtype: 'int64', offsetBytes: 0, data: null, id: 0, sizeBytes: 16 } },
    };
    const rec = new WasmLowerings();
    expect(() => rec.lower(inst, 'fast')).toThrow(WasmUnsupported);
    const [r] = structuredClone(rec.share());
    expect(r?.lowered).toBeNull();
    expect(() => new WasmLowerings(r ? [r] : []).lower(inst, 'fast')).toThrow(WasmUnsupported);
  });
});
