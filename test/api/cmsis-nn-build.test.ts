// The real TFLM + CMSIS-NN build (Cortex-M7, DSP; ../shared/oracle/cmsis-nn-m7/models.json) against
// inspect / runModel with kernels 'cmsis-nn': on every row whose model has no conv-family op
// (conv2d, depthwise, transposeConv: the cmsis-conv specs) the whole arena (total and persistent
// part) is arena_used_bytes / persistent_used_bytes and the seed-1 outputs are the build's bytes.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { inspectModel, kernelRegistry, loadModel, runModel, zooModel } from '../../src/index.ts';
import type { Model } from '../../src/index.ts';
import { getTflmArch } from '../../src/sim/index.ts';
import { ORACLE, dataPath, describeWithData, fetchedParts, hasOracle } from '../oracle-paths.ts';

const DIR = join(ORACLE, 'cmsis-nn-m7');
interface Row { readonly name: string; readonly model: string; readonly m7_cmsis_nn: { readonly arena_used_bytes: number; readonly persistent_used_bytes: number } }
const rows: readonly Row[] = hasOracle('cmsis-nn-m7/models.json') ? (JSON.parse(readFileSync(join(DIR, 'models.json'), 'utf8')) as { models: Row[] }).models : [];
/** What the rows read: the build's folder, and every folder a row's model is in. */
const NEEDS = fetchedParts('cmsis-nn-m7', ...rows.filter((r) => !r.model.startsWith('zoo:')).map((r) => r.model));
const CONV = new Set(['conv2d', 'depthwiseConv2d', 'transposeConv']);
const M7 = kernelRegistry('cmsis-nn', 'cortex-m7');
const ARCH = getTflmArch('cortex-m');

const modelOf = (r: Row): Model => (r.model.startsWith('zoo:') ? zooModel(r.model.slice(4)) : loadModel(readFileSync(dataPath(r.model))));

describeWithData(NEEDS, `the CMSIS-NN M7 build (${DIR})`, () => {
  let plain: readonly { readonly r: Row; readonly m: Model }[] = [];
  beforeAll(() => {
    plain = rows.map((r) => ({ r, m: modelOf(r) })).filter(({ m }) => !m.graph.ops.some((o) => CONV.has(o.kind)));
  });

  it('has rows without conv-family ops to check', () => {
    expect(plain.length).toBeGreaterThan(60);
  });

  it('whole arena and persistent part exact on every row without conv-family ops', () => {
    const wrong: string[] = [];
    for (const { r, m } of plain) {
      const a = inspectModel(m, 'tflm-greedy', {}, { arch: ARCH, kernels: M7 }).report.arena;
      const exact = a.totalBytes === r.m7_cmsis_nn.arena_used_bytes && a.persistentBytes === r.m7_cmsis_nn.persistent_used_bytes;
      if (!exact) wrong.push(`${r.name}: ${a.totalBytes}/${r.m7_cmsis_nn.arena_used_bytes} total, ${a.persistentBytes}/${r.m7_cmsis_nn.persistent_used_bytes} persistent`);
    }
    expect(wrong).toEqual([]);
  });

  it('seed-1 outputs byte-identical on every row without conv-family ops', () => {
    const wrong: string[] = [];
    for (const { r, m } of plain) {
      const seed = join(DIR, r.name, 'seed1');
      const inputs: Uint8Array[] = [];
      for (let i = 0; existsSync(join(seed, `input${i}.bin`)); i++) inputs.push(new Uint8Array(readFileSync(join(seed, `input${i}.bin`))));
      const out = runModel(m, { inputs, kernels: 'cmsis-nn', cpu: 'cortex-m7' }).outputs;
      out.forEach((b, i) => {
        if (!Buffer.from(b).equals(readFileSync(join(seed, `output${i}.bin`)))) wrong.push(`${r.name} output ${i}`);
      });
    }
    expect(wrong).toEqual([]);
  });
});
