// SVDF and UNIDIRECTIONAL_SEQUENCE_LSTM against TFLM: the op-models (SVDF_1-3, LSTM_1-3) and the
// LSTM models of models-extra run byte-identical to the goldens (outputs, dumped tensors, the
// variable state tensors after the op), plan exactly like TFLM (variables outside the plan, the
// ops' scratch buffers in it), and trace clean. State persists across runs as across Invoke():
// an LSTM sequence fed one step per run equals the whole sequence in one run, and an SVDF of
// memory M forgets an input after M more runs. keyword_scrambled's SVDF chain (int8 states with a
// non-zero zero point) matches op by op. Unsupported variants are refused with their rule id.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Graph, Model } from '../../src/ir/index.ts';
import { importTflite } from '../../src/ir/index.ts';
import { countCost, countMacs, validateOp } from '../../src/kernels/index.ts';
import { preparePlannedModel, runPlanned, tracerFor } from '../../src/optimizer/index.ts';
import { OP_MODELS, ORACLE, describeWithData, itWithData } from '../oracle-paths.ts';

const OWN = ['SVDF_1', 'SVDF_2', 'SVDF_3', 'UNIDIRECTIONAL_SEQUENCE_LSTM_1', 'UNIDIRECTIONAL_SEQUENCE_LSTM_2', 'UNIDIRECTIONAL_SEQUENCE_LSTM_3'].map((n) => join(OP_MODELS, n));
const EXTRA = ['dtln_noise_suppression', 'micro_speech_lstm', 'trained_lstm_int8'].map((n) => join(ORACLE, 'models-extra', n));

const read = (p: string): Uint8Array => new Uint8Array(readFileSync(p));
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const load = (base: string): Model => importTflite(read(`${base}.tflite`));

interface PlanEntry { readonly kind: string; readonly tensor_index?: number; readonly scratch_index?: number; readonly offset: number; readonly first_time_used?: number; readonly last_time_used?: number }
interface Meta { readonly planner_max_memory_bytes: number; readonly memory_plan: readonly PlanEntry[] }

describe('SVDF / UNIDIRECTIONAL_SEQUENCE_LSTM goldens (TFLM reference kernels)', () => {
  for (const base of [...OWN, ...EXTRA]) {
    const name = base.split('/').pop() as string;
    const dir = join(base, 'seed1');
    itWithData(EXTRA.includes(base) ? 'models-extra' : [], `${name}: outputs, dumped tensors (state included) and plan equal TFLM's, trace clean`, () => {
      expect(existsSync(dir), dir).toBe(true);
      const pm = preparePlannedModel(load(base));
      const inputs = readdirSync(dir).filter((f) => /^input\d+\.bin$/.test(f)).sort().map((f) => read(join(dir, f)));
      const tracer = tracerFor(pm);
      const r = runPlanned(pm, { inputs, captureTensors: true, trace: tracer.sink });
      tracer.finish();
      expect(tracer.violations()).toEqual([]);
      r.outputs.forEach((o, i) => expect(hex(o), `${name} output ${i}`).toBe(hex(read(join(dir, `output${i}.bin`)))));
      const dumps = readdirSync(dir).filter((f) => /^tensor_\d+\.bin$/.test(f));
      expect(dumps.length).toBeGreaterThan(1);
      for (const f of dumps) {
        const t = Number(f.slice('tensor_'.length, -'.bin'.length));
        const ours = r.tensors?.[t];
        expect(ours, `${name} tensor ${t} captured`).toBeDefined();
        expect(hex(ours as Uint8Array), `${name} tensor ${t}`).toBe(hex(read(join(dir, f))));
      }
      const meta = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')) as Meta;
      const got = pm.requests.map((q, i) => ({ kind: q.tensor === null ? 'scratch' : 'tensor', index: q.tensor ?? q.scratchIndex, offset: pm.plan.offsets[i] }));
      const want = meta.memory_plan.map((e) => ({ kind: e.kind, index: e.kind === 'tensor' ? e.tensor_index : e.scratch_index, offset: e.offset }));
      expect(got).toEqual(want);
      expect(pm.plan.peakBytes).toBe(meta.planner_max_memory_bytes);
      // The nests' 'mac' statements equal the closed-form MAC rule of macs.ts.
      pm.runtime.instances.forEach((inst, i) => expect(countCost(inst).macs, `${name} op ${i}`).toBe(countMacs(pm.graph.ops[i]!, pm.graph)));
      // Variable state is never planned: it sits after the planned head.
      pm.graph.tensors.forEach((t, i) => {
        if (!t.isVariable) return;
        expect(pm.requests.some((q) => q.tensor === i)).toBe(false);
        expect(pm.tensorOffsets[i] ?? -1).toBeGreaterThanOrEqual(pm.plan.peakBytes);
      });
    });
  }
});

describeWithData('models-extra', 'keyword_scrambled (7 SVDFs, int16 and int8 state): the SVDF / FC chain from the golden QUANTIZE output', () => {
  // The model's first QUANTIZE (int16 -> int8) and its int16 SOFTMAX / QUANTIZE tail are other
  // kernels; ops 1..n-3 are SVDF and FULLY_CONNECTED only, fed here with TFLM's tensor_<q>.bin.
  for (const name of ['keyword_scrambled', 'keyword_scrambled_8bit']) {
    it(`${name}: every SVDF / FC output and SVDF state equals TFLM's dump`, () => {
      const base = join(ORACLE, 'models-extra', name);
      const dir = join(base, 'seed1');
      const model = load(base);
      const g = model.graph;
      const ops = g.ops.slice(1, -2);
      expect(new Set(ops.map((o) => o.kind))).toEqual(new Set(['svdf', 'fullyConnected']));
      const first = ops[0]?.inputs[0] ?? -1;
      const last = ops[ops.length - 1]?.outputs[0] ?? -1;
      const pm = preparePlannedModel({ ...model, graph: { ...g, ops, inputs: [first], outputs: [last] } });
      const r = runPlanned(pm, { inputs: [read(join(dir, `tensor_${first}.bin`))], captureTensors: true });
      const touched = new Set(ops.flatMap((o) => [...o.outputs, ...(o.kind === 'svdf' ? [o.inputs[4] ?? -1] : [])]));
      let checked = 0;
      for (const t of touched) {
        const f = join(dir, `tensor_${t}.bin`);
        if (!existsSync(f)) continue;
        expect(hex(r.tensors?.[t] ?? new Uint8Array(0)), `${name} tensor ${t}`).toBe(hex(read(f)));
        checked++;
      }
      expect(checked).toBe(touched.size);
    });
  }
});

/** The LSTM model with its time axis cut to one step (same weights and state tensors). */
function oneStep(g: Graph): Graph {
  const op = g.ops[0];
  if (op === undefined) throw new Error('no op');
  const tensors = g.tensors.map((t, i) => (i === op.inputs[0] || i === op.outputs[0] ? { ...t, shape: [t.shape[0] ?? 1, 1, t.shape[2] ?? 1] } : t));
  return { ...g, tensors };
}

describe('variable state persists across runs (TFLM Invoke semantics)', () => {
  it('LSTM: a T-step sequence fed one step per run equals the golden T-step run', () => {
    const base = join(OP_MODELS, 'UNIDIRECTIONAL_SEQUENCE_LSTM_2');
    const model = load(base);
    const [, steps = 0, features = 0] = model.graph.tensors[model.graph.inputs[0] ?? 0]?.shape ?? [];
    expect(steps).toBeGreaterThan(1);
    const x = read(join(base, 'seed1', 'input0.bin'));
    const pm = preparePlannedModel({ ...model, graph: oneStep(model.graph) });
    const outs = Array.from({ length: steps }, (_, t) => runPlanned(pm, { inputs: [x.slice(t * features, (t + 1) * features)] }).outputs[0] as Uint8Array);
    expect(hex(Buffer.concat(outs))).toBe(hex(read(join(base, 'seed1', 'output0.bin'))));
    // Reset (AllocateTensors) brings the zero state back: the first step again.
    pm.runtime.resetVariables();
    expect(hex(runPlanned(pm, { inputs: [x.slice(0, features)] }).outputs[0] as Uint8Array)).toBe(hex(outs[0] as Uint8Array));
  });

  it('SVDF (memory M): the first input is forgotten after M more runs, not after M - 1', () => {
    const base = join(OP_MODELS, 'SVDF_1');
    const model = load(base);
    const op = model.graph.ops[0];
    const memory = model.graph.tensors[op?.inputs[2] ?? 0]?.shape[1] ?? 0;
    const x = read(join(base, 'seed1', 'input0.bin'));
    const other = x.map((b) => (b + 97) & 0xff);
    const after = (first: Uint8Array, runs: number): string => {
      const pm = preparePlannedModel(model);
      let out = runPlanned(pm, { inputs: [first] }).outputs[0] as Uint8Array;
      expect(hex(out)).toBe(first === x ? hex(read(join(base, 'seed1', 'output0.bin'))) : hex(out));
      for (let k = 1; k <= runs; k++) out = runPlanned(pm, { inputs: [x.map((b) => (b * (k + 3)) & 0xff)] }).outputs[0] as Uint8Array;
      return hex(out);
    };
    expect(after(x, memory)).toBe(after(other, memory));
    expect(after(x, memory - 1)).not.toBe(after(other, memory - 1));
  });
});

describe('refusals name the rule', () => {
  const ids = (g: Graph): string[] => validateOp(g, 0).map((i) => `${i.code} ${/\[([^\]]+)\]/.exec(i.message)?.[1] ?? ''}`);

  it('SVDF whose state is not a variable tensor', () => {
    const g = load(join(OP_MODELS, 'SVDF_1')).graph;
    const st = g.ops[0]?.inputs[4] ?? 0;
    const bad = { ...g, tensors: g.tensors.map((t, i) => (i === st ? { ...t, isVariable: false } : t)) };
    expect(ids(bad)).toEqual(['E_KERNEL_CONSTRAINT svdf.state-variable']);
  });

  it('LSTM with an int8 cell state or a projection', () => {
    const g = load(join(OP_MODELS, 'UNIDIRECTIONAL_SEQUENCE_LSTM_1')).graph;
    const op = g.ops[0];
    if (op === undefined || op.kind !== 'unidirectionalSequenceLstm') throw new Error('not an LSTM');
    const cell = op.inputs[19] ?? 0;
    const int8Cell = { ...g, tensors: g.tensors.map((t, i) => (i === cell ? { ...t, dtype: 'int8' as const } : t)) };
    expect(ids(int8Cell)).toContain('E_KERNEL_CONSTRAINT unidirectionalSequenceLstm.cell-state');
    const projected = { ...g, ops: [{ ...op, inputs: op.inputs.map((t, i) => (i === 16 ? (op.inputs[5] ?? -1) : t)) }] };
    expect(ids(projected)).toEqual(['E_KERNEL_CONSTRAINT unidirectionalSequenceLstm.variant']);
  });
});
