// TFLM op-model goldens (testdata/op-models) of the math ops HARD_SWISH, LOG_SOFTMAX, TANH,
// ELU, PRELU, L2_NORMALIZATION, RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR: every variant present
// runs with the TFLM greedy plan, outputs and every dumped tensor byte-identical; the plan (buffers,
// offsets, peak) equals meta.json; fast and traced executors agree with a clean tracer report.
// Also the public real models that need these ops (models-real: RESIZE_NEAREST_NEIGHBOR in
// mcunet_detection, float LOG_SOFTMAX in mcunet_lenet300, RESIZE_BILINEAR in nanou_int8_seg).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importTflite } from '../../src/ir/index.ts';
import { computeModelBufferRequests, planGreedy, preparePlannedModel, runPlanned, tracerFor } from '../../src/optimizer/index.ts';
import { getTarget, opComputeCycles } from '../../src/sim/index.ts';
import { OP_MODELS, ORACLE, describeWithData } from '../oracle-paths.ts';

const OPS = ['HARD_SWISH', 'LOG_SOFTMAX', 'TANH', 'ELU', 'PRELU', 'L2_NORMALIZATION', 'RESIZE_NEAREST_NEIGHBOR', 'RESIZE_BILINEAR'] as const;

const read = (path: string): Uint8Array => new Uint8Array(readFileSync(path));
const variants = (op: string): string[] =>
  readdirSync(OP_MODELS).filter((f) => new RegExp(`^${op}_\\d+\\.tflite$`).test(f)).map((f) => f.slice(0, -'.tflite'.length)).sort();
const filesIn = (dir: string, re: RegExp): string[] => readdirSync(dir).filter((f) => re.test(f)).sort();

interface Meta {
  readonly planner_max_memory_bytes: number;
  readonly operators: readonly string[];
  readonly memory_plan: readonly { kind: string; tensor_index?: number; offset: number; size: number | null; first_time_used: number; last_time_used: number }[];
}

function firstDiff(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) return i;
  return -1;
}

describe('math op-models against TFLM', () => {
  for (const op of OPS) {
    const names = variants(op);
    it(`${op}: the public variants are present`, () => {
      expect(names.length).toBeGreaterThanOrEqual(3);
    });
    for (const name of names) {
      it(`${name}: outputs, every dumped tensor and the plan match TFLM`, () => {
        const dir = join(OP_MODELS, name, 'seed1');
        expect(existsSync(dir)).toBe(true);
        const meta = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')) as Meta;
        expect(meta.operators).toEqual([op]);
        const model = importTflite(read(join(OP_MODELS, `${name}.tflite`)));
        const requests = computeModelBufferRequests(model);
        const plan = planGreedy(requests);
        expect(requests.map((r, i) => ({ tensor: r.tensor, offset: plan.offsets[i], size: r.sizeBytes, first: r.firstStep, last: r.lastStep }))).toEqual(
          meta.memory_plan.map((e) => ({ tensor: e.tensor_index, offset: e.offset, size: e.size, first: e.first_time_used, last: e.last_time_used })),
        );
        expect(plan.peakBytes).toBe(meta.planner_max_memory_bytes);

        const pm = preparePlannedModel(model);
        const inputs = filesIn(dir, /^input\d+\.bin$/).map((f) => read(join(dir, f)));
        const r = runPlanned(pm, { inputs, captureTensors: true });
        const outs = filesIn(dir, /^output\d+\.bin$/);
        expect(r.outputs.length).toBe(outs.length);
        outs.forEach((f, i) => expect(firstDiff(r.outputs[i] as Uint8Array, read(join(dir, f))), `${name} ${f}`).toBe(-1));
        const dumps = filesIn(dir, /^tensor_\d+\.bin$/);
        expect(dumps.length).toBeGreaterThanOrEqual(2);
        for (const f of dumps) {
          const t = Number(f.slice('tensor_'.length, -'.bin'.length));
          const ours = r.tensors?.[t];
          expect(ours, `${name} tensor ${t} not captured`).toBeDefined();
          expect(firstDiff(ours as Uint8Array, read(join(dir, f))), `${name} ${f}`).toBe(-1);
        }

        const tracer = tracerFor(pm);
        const traced = runPlanned(pm, { inputs, trace: tracer.sink });
        tracer.finish();
        expect(tracer.violations()).toEqual([]);
        traced.outputs.forEach((o, i) => expect(firstDiff(o, r.outputs[i] as Uint8Array), `${name} traced output ${i}`).toBe(-1));

        // The latency model prices the op (measured instruction model, or marked as estimated): instructions and cycles.
        for (const library of ['reference', 'cmsis-nn'] as const) {
          const cost = opComputeCycles(model.graph, 0, getTarget('nicla-vision'), library);
          expect(cost.instructions, `${name} ${library}`).toBeGreaterThan(0);
          expect(cost.cycles, `${name} ${library}`).toBeGreaterThan(0);
        }
      });
    }
  }
});

describeWithData('models-real', 'real models using the math ops against TFLM', () => {
  const REAL = join(ORACLE, 'models-real');
  for (const name of ['mcunet_detection', 'mcunet_lenet300', 'nanou_int8_seg']) {
    it(`${name}: outputs and every dumped tensor match TFLM`, () => {
      const dir = join(REAL, name, 'seed1');
      const pm = preparePlannedModel(importTflite(read(join(REAL, `${name}.tflite`))));
      const inputs = filesIn(dir, /^input\d+\.bin$/).map((f) => read(join(dir, f)));
      const r = runPlanned(pm, { inputs, captureTensors: true });
      const outs = filesIn(dir, /^output\d+\.bin$/);
      expect(r.outputs.length).toBe(outs.length);
      outs.forEach((f, i) => expect(firstDiff(r.outputs[i] as Uint8Array, read(join(dir, f))), `${name} ${f}`).toBe(-1));
      for (const f of filesIn(dir, /^tensor_\d+\.bin$/)) {
        const t = Number(f.slice('tensor_'.length, -'.bin'.length));
        expect(firstDiff(r.tensors?.[t] as Uint8Array, read(join(dir, f))), `${name} ${f}`).toBe(-1);
      }
    });
  }
});
