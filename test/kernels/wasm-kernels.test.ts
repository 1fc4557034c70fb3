// WasmLowerings: lowerings recorded while one runtime is prepared, cloned as a worker thread gets
// them and replayed by another runtime of the same model: the replay hands back the records
// themselves (nothing is lowered again), the runs give the same output bytes and trace events as a
// runtime that lowered its own, and a record is never applied to an instance of another structure.
import { describe, expect, it } from 'vitest';
import { buildZooModel } from '../../src/ir/index.ts';
import type { KernelInstance } from '../../src/kernels/index.ts';
import { For, loweringKey, lowerWasm, Store, WasmLowerings, WasmUnsupported } from '../../src/kernels/index.ts';
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

  const modes = ['fast', 'traced'] as const;

  it('records fast and traced code of every op, once per structure, with its compiled module', () => {
    const keys = new Set(recorded.runtime.instances.flatMap((inst) => modes.map((m) => loweringKey(inst, m))));
    expect(shared.map((r) => r.key).sort()).toEqual([...keys].sort());
    // ds-cnn-kws repeats its depthwise-pointwise blocks: fewer structures than ops.
    expect(keys.size).toBeLessThan(2 * kws.graph.ops.length);
    const byKey = new Map(shared.map((r) => [r.key, r]));
    for (const inst of recorded.runtime.instances) {
      for (const m of modes) {
        const r = byKey.get(loweringKey(inst, m));
        expect(r?.lowered).toEqual(lowerWasm(inst, m));
        expect(Object.prototype.toString.call(r?.module)).toBe('[object WebAssembly.Module]');
      }
    }
  });

  it('replays the records it was given instead of lowering, and the runs are the same', () => {
    const replay = new WasmLowerings(shared);
    const pm = preparePlannedModel(kws, { verify: false, wasmLowering: replay.lower });
    const byKey = new Map(shared.map((r) => [r.key, r.lowered]));
    for (const inst of pm.runtime.instances) for (const m of modes) expect(replay.lower(inst, m)).toBe(byKey.get(loweringKey(inst, m)));
    const own = preparePlannedModel(kws, { verify: false });
    const a = outcome(own);
    const b = outcome(pm);
    expect(b.outputs).toEqual(a.outputs);
    expect(b.trace.equals(a.trace)).toBe(true);
  });

  it('hands each record over once: the fast code first, the traced code when it is lowered', () => {
    const rec = new WasmLowerings();
    const pm = preparePlannedModel(kws, { verify: false, wasmLowering: rec.lower });
    const fast = structuredClone(rec.share());
    expect(fast.map((r) => r.key).sort()).toEqual([...new Set(pm.runtime.instances.map((inst) => loweringKey(inst, 'fast')))].sort());
    expect(rec.share()).toEqual([]);
    rec.lowerTraced(pm.runtime.instances);
    const traced = structuredClone(rec.share());
    expect(traced.map((r) => r.key).sort()).toEqual([...new Set(pm.runtime.instances.map((inst) => loweringKey(inst, 'traced')))].sort());
    // A receiver fetching the batches as it misses keys takes the fast one while its runtime is
    // made and the traced one on the first traced run; it lowers nothing and hands nothing back.
    const batches = [fast, traced];
    let fetches = 0;
    const replay = new WasmLowerings([], () => {
      fetches++;
      const next = batches.shift();
      if (next !== undefined) replay.add(next);
      return next !== undefined;
    });
    const other = preparePlannedModel(kws, { verify: false, wasmLowering: replay.lower });
    expect(fetches).toBe(1);
    expect(outcome(other).trace.equals(outcome(recorded).trace)).toBe(true);
    expect(fetches).toBe(2);
    const byKey = new Map([...fast, ...traced].map((r) => [r.key, r.lowered]));
    for (const inst of other.runtime.instances) for (const m of modes) expect(replay.lower(inst, m)).toBe(byKey.get(loweringKey(inst, m)));
    expect(fetches).toBe(2);
    expect(replay.share()).toEqual([]);
    // With no batch left, a key no batch had is lowered here (and handed over by the next share).
    const cifar = preparePlannedModel(buildZooModel('cifar10-cnn'), { verify: false, wasmLowering: replay.lower });
    expect(fetches).toBeGreaterThan(2);
    expect(replay.share().length).toBe(new Set(cifar.runtime.instances.map((inst) => loweringKey(inst, 'fast'))).size);
  });

  it('never applies a record to an instance of another structure', () => {
    const other = preparePlannedModel(buildZooModel('cifar10-cnn'), { verify: false });
    const replay = new WasmLowerings(shared);
    const kwsKeys = new Set(shared.map((r) => r.key));
    const inst = other.runtime.instances[0] as KernelInstance;
    expect(kwsKeys.has(loweringKey(inst, 'fast'))).toBe(false);
    expect(replay.lower(inst, 'fast')).toEqual(lowerWasm(inst, 'fast'));
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
