// TFLM's tolerance through the CLI (issue 13): Vela's model loads with its offline plan and is
// refused only for its ethos-u custom op; a uint8-input model runs like TFLM; `inspect`, and the
// commands that optimize, cost or report a model, refuse every model `run` refuses (kernel
// constraints included), with the same code; so does the library's pipeline.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importTflite, readOfflinePlan } from '../../src/ir/index.ts';
import { exportTflite } from '../../src/ir/tflite/export-tflite.ts';
import { computeModelBufferRequests, runPipeline } from '../../src/optimizer/index.ts';
import { ORACLE, describeWithData } from '../oracle-paths.ts';
import { makeModel, quant, tensor } from '../ir/tflite/fixtures.ts';
import { runMcusim, testTempDir } from './bin-helpers.ts';

const REAL = `${ORACLE}/models-real`;
const VELA = `${REAL}/tflm_person_detect_vela.tflite`;
const AWW = `${REAL}/mlperf_v01_aww_uint8in`;
const tmp = testTempDir('mcusim-tolerance-');

describeWithData('models-real', 'a Vela-compiled model', () => {
  it('imports with its offline plan (header [0, 1, n]) and plans its tensors at those offsets', async () => {
    const model = importTflite(readFileSync(VELA));
    const plan = readOfflinePlan(model);
    expect(plan).not.toBeNull();
    const requests = computeModelBufferRequests(model);
    expect(requests.length).toBeGreaterThan(0);
    for (const r of requests) expect(r.offlineOffsetBytes).toBe(plan![r.tensor!] === -1 ? null : plan![r.tensor!]);
    // Its scratch tensors are read by the op but produced by none: live from before the first op.
    const unproduced = requests.filter((r) => r.firstStep === -1);
    expect(unproduced.length).toBeGreaterThan(0);
  });

  // latency once met the offline plan's overlapping scratch tensors first (E_PLAN_OVERLAP).
  it.each([['inspect'], ['run'], ['optimize', '--passes', 'dmo', '-o', join(tmp, 'vela-opt.tflite')], ['latency'], ['latency', '--table'], ['sweep'], ['report', '-o', join(tmp, 'vela.html')]])('%s refuses it only for the ethos-u custom op, exit 2', async (cmd, ...rest) => {
    const r = (await runMcusim([cmd, VELA, ...rest, ...(cmd === 'report' ? [] : ['--json'])]));
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^E_MODEL_UNSUPPORTED_OP: op 0 \(custom:ethos-u\)/);
  });
});

describeWithData('models-real', 'QUANTIZE uint8 -> int8 on a real model', () => {
  it('runs identical to the TFLM golden, and inspect accepts it', async () => {
    const out = join(tmp, 'aww');
    const r = (await runMcusim(['run', `${AWW}.tflite`, '--input', `${AWW}/seed1/input0.bin`, '--out', out]));
    expect(r.code, r.stderr).toBe(0);
    expect(Buffer.from(readFileSync(join(out, 'output0.bin'))).equals(readFileSync(`${AWW}/seed1/output0.bin`))).toBe(true);
    expect((await runMcusim(['inspect', `${AWW}.tflite`, '--json'])).code).toBe(0);
  });
});

describe('inspect runs every constraint run runs', () => {
  it('refuses a model only a kernel constraint rejects (QUANTIZE uint8 -> uint8), with the same code as run', async () => {
    const q = quant([0.05], [128]);
    const model = makeModel(
      [tensor('in', 'uint8', [1, 8], { quant: q }), tensor('out', 'uint8', [1, 8], { quant: quant([0.1], [3]) })],
      [{ kind: 'quantize', inputs: [0], outputs: [1], options: {} }],
      [0],
      [1],
    );
    const file = join(tmp, 'uint8-to-uint8.tflite');
    writeFileSync(file, exportTflite(model));
    for (const cmd of ['inspect', 'run']) {
      const r = (await runMcusim([cmd, file, '--json']));
      expect(r.code, cmd).toBe(2);
      expect(r.stderr, cmd).toMatch(/^E_KERNEL_CONSTRAINT: .*quantize\.types/);
    }
  });
});

describeWithData('models-real', 'a real model TFLM refuses in Prepare (armex_basic_lstm_s: FILL with non-constant dims)', () => {
  // report once ran the DMO pass on it and blamed the pass (E_INTERNAL "pass 'dmo' built an
  // invalid model") after seconds of work.
  const ARMEX = `${REAL}/armex_basic_lstm_s.tflite`;
  it.each([['optimize', '--passes', 'dmo', '-o', join(tmp, 'armex.tflite')], ['latency'], ['sweep'], ['report', '-o', join(tmp, 'armex.html')]])('%s refuses armex_basic_lstm_s for op 5 FILL as run does, exit 2', async (cmd, ...rest) => {
    const r = await runMcusim([cmd, ARMEX, ...rest]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^E_KERNEL_CONSTRAINT: op 5 \(fill\): \[fill\.dims\]/)]);
  });

  it('the library pipeline refuses it as its input\'s error, not a pass\'s', () => {
    const model = importTflite(readFileSync(ARMEX));
    expect(() => runPipeline(model, ['dmo'], { flags: {} })).toThrow(expect.objectContaining({ code: 'E_KERNEL_CONSTRAINT' }));
  });
});
