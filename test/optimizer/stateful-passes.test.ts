// Every pass on models with SVDF / UNIDIRECTIONAL_SEQUENCE_LSTM (variable state outside the plan):
// each either applies and verifies (bit-exact, clean trace, after an export / import round trip as
// `optimize -o` writes it) or declines with a note; none breaks the stateful ops.
import { readFileSync } from 'node:fs';
import { describe, expect } from 'vitest';
import { exportTflite, importTflite } from '../../src/ir/index.ts';
import { runPipeline } from '../../src/optimizer/index.ts';
import { verifyModels, verifyPassed } from '../../src/api/index.ts';
import { dataPath, fetchedParts, itWithData } from '../oracle-paths.ts';

const MODELS = ['op-models/SVDF_3', 'op-models/UNIDIRECTIONAL_SEQUENCE_LSTM_2', 'models-extra/dtln_noise_suppression'];
const PASSES = ['dmo', 'replacement', 'ffmt', 'fdt', 'tinyseg'];

describe('passes on stateful models', () => {
  for (const name of MODELS) {
    itWithData(fetchedParts(name), `${name}: ${PASSES.join(', ')} apply and verify, or decline`, () => {
      const model = importTflite(new Uint8Array(readFileSync(dataPath(`${name}.tflite`))));
      for (const pass of PASSES) {
        const r = runPipeline(model, [pass], { flags: {} });
        const report = r.reports[0];
        expect(report, pass).toBeDefined();
        if (report?.applied !== true) {
          expect(report?.notes.length, `${name} ${pass} declines with a note`).toBeGreaterThan(0);
          continue;
        }
        const written = importTflite(exportTflite(r.model));
        expect(verifyPassed(verifyModels(model, written, 2)), `${name} ${pass}`).toBe(true);
      }
    });
  }
});
