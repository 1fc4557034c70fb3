// Every oracle model as a generated C project, built with the host cc (-O2 -std=c99 -Wall -Wextra
// -Werror), run on the oracle inputs: outputs byte-identical to TFLM's and to the simulator's.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import { emitCProject } from '../../src/codegen/index.ts';
import { importTflite } from '../../src/ir/index.ts';
import { preparePlannedModel, runPlanned } from '../../src/optimizer/index.ts';
import { ORACLE_MODELS, itWithData, tfliteNames } from '../oracle-paths.ts';
import { hasTool, hex, make, makeTempDir, removeDir, runHost, writeProject } from './codegen-helpers.ts';

const hasCc = hasTool('cc') && hasTool('make');
if (!hasCc) console.warn('cc or make not found: SKIPPING the host C port tests');

const models = tfliteNames(ORACLE_MODELS);

describe.skipIf(!hasCc)('C port on the host vs TFLM oracle and simulator', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach(removeDir));
  itWithData('models', 'finds the oracle models', () => expect(models.length).toBeGreaterThan(0));
  for (const name of models) {
    itWithData('models', `${name}: host build reproduces every oracle seed`, () => {
      const model = importTflite(readFileSync(join(ORACLE_MODELS, `${name}.tflite`)));
      const pm = preparePlannedModel(model);
      const project = emitCProject(pm, { modelName: name });
      const dir = makeTempDir(`cg-${name}`);
      dirs.push(dir);
      writeProject(project, dir);
      make(dir, 'host');
      const { graph } = model;
      const seeds = readdirSync(join(ORACLE_MODELS, name)).filter((s) => s.startsWith('seed')).sort();
      expect(seeds.length).toBeGreaterThan(0);
      for (const seed of seeds) {
        const sd = join(ORACLE_MODELS, name, seed);
        const inputs = graph.inputs.map((_, i) => new Uint8Array(readFileSync(join(sd, `input${i}.bin`))));
        const got = runHost(dir, inputs, graph.outputs.length);
        const sim = runPlanned(pm, { inputs }).outputs;
        graph.outputs.forEach((_, i) => {
          const oracle = new Uint8Array(readFileSync(join(sd, `output${i}.bin`)));
          expect(hex(got[i] as Uint8Array), `${name} ${seed} output ${i} vs TFLM`).toBe(hex(oracle));
          expect(hex(got[i] as Uint8Array), `${name} ${seed} output ${i} vs simulator`).toBe(hex(sim[i] as Uint8Array));
        });
      }
    });
  }
});
