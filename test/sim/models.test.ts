// Whole-model goldens: every oracle model (testdata/models/<name>.tflite) and seed dir runs
// with the TFLM greedy plan; outputs and every dumped tensor_<index>.bin (captured right after its
// producing op) must match TFLM byte for byte. Ops without a kernel spec fail with
// E_MODEL_UNSUPPORTED_OP (never skipped). person_detect also runs through the traced executor.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { McusimError, importTflite } from '../../src/ir/index.ts';
import type { TraceSink } from '../../src/kernels/index.ts';
import type { PlannedModel } from '../../src/optimizer/index.ts';
import { preparePlannedModel, runPlanned } from '../../src/optimizer/index.ts';

import { ORACLE_MODELS as MODELS, describeWithData, tfliteNames } from '../oracle-paths.ts';
const modelNames = tfliteNames(MODELS);
const seedDirs = (name: string): string[] =>
  existsSync(join(MODELS, name)) ? readdirSync(join(MODELS, name)).filter((d) => /^seed\d+$/.test(d)).sort() : [];

const read = (path: string): Uint8Array => new Uint8Array(readFileSync(path));
const countFiles = (dir: string, re: RegExp): number => readdirSync(dir).filter((f) => re.test(f)).length;

const prepared = new Map<string, PlannedModel>();

/** Prepare (once per model), turning a coded error into a failure naming the code (e.g. E_MODEL_UNSUPPORTED_OP). */
function prepare(name: string): PlannedModel {
  try {
    const pm = prepared.get(name) ?? preparePlannedModel(importTflite(read(join(MODELS, `${name}.tflite`))));
    prepared.set(name, pm);
    return pm;
  } catch (e) {
    if (e instanceof McusimError) throw new Error(`${name}: ${e.code}: ${e.message}`);
    throw e;
  }
}

function inputsOf(dir: string): Uint8Array[] {
  return Array.from({ length: countFiles(dir, /^input\d+\.bin$/) }, (_, i) => read(join(dir, `input${i}.bin`)));
}

/** Index of the first differing byte, or -1. */
function firstDiff(a: Uint8Array, b: Uint8Array): number {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return -1;
}

describeWithData('models', 'oracle models', () => {
  it('finds the required models', () => {
    expect(modelNames).toEqual(expect.arrayContaining(['person_detect', 'micro_speech_quantized', 'hello_world_int8', 'simple_add_model']));
  });

  for (const name of modelNames) {
    for (const seed of seedDirs(name)) {
      it(`${name}/${seed}: outputs and dumped tensors match TFLM`, () => {
        const dir = join(MODELS, name, seed);
        const pm = prepare(name);
        const r = runPlanned(pm, { inputs: inputsOf(dir), captureTensors: true });
        r.outputs.forEach((out, i) => {
          const want = read(join(dir, `output${i}.bin`));
          expect(firstDiff(out, want), `${name}/${seed} output ${i}: first differing byte`).toBe(-1);
        });
        expect(r.outputs.length).toBe(countFiles(dir, /^output\d+\.bin$/));
        for (const f of readdirSync(dir).filter((x) => /^tensor_\d+\.bin$/.test(x))) {
          const t = Number(f.slice('tensor_'.length, -'.bin'.length));
          const ours = r.tensors?.[t] ?? null;
          const producer = pm.graph.ops.findIndex((op) => op.outputs.includes(t));
          const where = `${name}/${seed} tensor ${t} '${pm.graph.tensors[t]?.name}' (op ${producer} ${pm.graph.ops[producer]?.kind ?? 'graph input'})`;
          expect(ours, `${where}: not captured`).not.toBeNull();
          expect(firstDiff(ours as Uint8Array, read(join(dir, f))), `${where}: first differing byte`).toBe(-1);
        }
      });
    }
  }

  it('person_detect: a linear (no-reuse) plan gives the same outputs, and captures equal the final arena', () => {
    const dir = join(MODELS, 'person_detect', 'seed1');
    const inputs = inputsOf(dir);
    const greedy = runPlanned(prepare('person_detect'), { inputs, captureTensors: true });
    const linear = preparePlannedModel(importTflite(read(join(MODELS, 'person_detect.tflite'))), { planner: 'linear' });
    const r = runPlanned(linear, { inputs, captureTensors: true });
    r.outputs.forEach((out, i) => expect(firstDiff(out, greedy.outputs[i] as Uint8Array)).toBe(-1));
    linear.graph.tensors.forEach((t, i) => {
      if (t.data !== null) return;
      expect(firstDiff(r.tensors?.[i] as Uint8Array, linear.runtime.readTensor(i)), `tensor ${i}`).toBe(-1);
      expect(firstDiff(r.tensors?.[i] as Uint8Array, greedy.tensors?.[i] as Uint8Array), `tensor ${i} greedy vs linear`).toBe(-1);
    });
  });

  it('person_detect: the traced executor gives the same outputs as the fast one', () => {
    const dir = join(MODELS, 'person_detect', 'seed1');
    const pm = prepare('person_detect');
    const inputs = inputsOf(dir);
    const fast = runPlanned(pm, { inputs });
    let events = 0;
    const sink: TraceSink = (_op, _log, count) => {
      events += count;
    };
    const traced = runPlanned(pm, { inputs, trace: sink });
    expect(events).toBeGreaterThan(0);
    traced.outputs.forEach((out, i) => {
      expect(firstDiff(out, fast.outputs[i] as Uint8Array), `traced output ${i}`).toBe(-1);
      expect(firstDiff(out, read(join(dir, `output${i}.bin`))), `traced output ${i} vs TFLM`).toBe(-1);
    });
  });
});
