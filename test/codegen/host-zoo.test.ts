// Zoo models as generated C on the host, with the default (TFLM greedy) plan and with the DMO
// plan (inputs overlapping outputs by O_s: the C kernels must read before they overwrite exactly
// as the simulator's): outputs byte-identical to the simulator's on seeded random inputs.
import { afterAll, describe, expect, it } from 'vitest';
import { emitCProject } from '../../src/codegen/index.ts';
import { buildZooModel } from '../../src/ir/index.ts';
import { preparePlannedModel, randomInputs, runPlanned } from '../../src/optimizer/index.ts';
import { hasTool, hex, make, makeTempDir, removeDir, runHost, writeProject } from './codegen-helpers.ts';

const hasCc = hasTool('cc') && hasTool('make');
if (!hasCc) console.warn('cc or make not found: SKIPPING the zoo C port tests');

const CASES: readonly { readonly zoo: string; readonly planner: string }[] = [
  { zoo: 'tiny-unet', planner: 'tflm-greedy' },
  { zoo: 'tiny-unet', planner: 'dmo' },
  { zoo: 'mobilenet-v1-0.25-128', planner: 'tflm-greedy' },
  { zoo: 'mobilenet-v1-0.25-128', planner: 'dmo' },
];
const SEEDS = [1];

describe.skipIf(!hasCc)('C port of zoo models vs the simulator', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach(removeDir));
  for (const c of CASES) {
    it(`zoo:${c.zoo} (${c.planner}) matches the simulator on seeds ${SEEDS.join(', ')}`, () => {
      const model = buildZooModel(c.zoo);
      const pm = preparePlannedModel(model, { planner: c.planner });
      const project = emitCProject(pm);
      expect(project.summary.peakBytes).toBe(pm.plan.peakBytes);
      const dir = makeTempDir(`cg-${c.zoo}-${c.planner}`);
      dirs.push(dir);
      writeProject(project, dir);
      make(dir, 'host');
      for (const seed of SEEDS) {
        const inputs = randomInputs(model.graph, seed);
        const got = runHost(dir, inputs, model.graph.outputs.length);
        const sim = runPlanned(pm, { inputs }).outputs;
        sim.forEach((s, i) => expect(hex(got[i] as Uint8Array), `seed ${seed} output ${i}`).toBe(hex(s)));
      }
    });
  }
});
