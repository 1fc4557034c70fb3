// Issue 44's CLI: `mcusim boards [--json]`, the latency contract (`--board NAME --kernels --engine --json`:
// totalMs, ops [{index, kind, cycles, ms}], board, library, engine), `--boards all` (one line per
// board) and `--validate` on the public MLPerf Tiny CSV; bad values exit 2 with E_USAGE.
import { describe, expect, it } from 'vitest';
import type { BinRun } from './bin-helpers.ts';
import { runMcusim } from './bin-helpers.ts';

const mcusim = (...args: string[]): Promise<BinRun> => runMcusim(args);
// The zoo's MLPerf Tiny KWS: op for op the public file (test/ir/zoo/mlperf-zoo.test.ts), so no data needed.
const KWS = 'zoo:mlperf-kws';

describe('mcusim boards', () => {
  it('lists the 14 boards as a table and as JSON with core, clock, regions and flash timing', async () => {
    const text = await mcusim('boards');
    expect(text.code).toBe(0);
    for (const b of ['nucleo-l4r5zi', 'rpi-pico', 'ek-ra8d1']) expect(text.stdout).toContain(b);
    const doc = JSON.parse((await mcusim('boards', '--json')).stdout);
    expect(doc.boards).toHaveLength(14);
    const l4 = doc.boards.find((b: { name: string }) => b.name === 'nucleo-l4r5zi');
    expect(l4).toEqual(expect.objectContaining({ mcu: 'STM32L4R5ZIT6', core: expect.objectContaining({ family: 'cortex-m4', dsp: true, clockHz: 120e6 }), spillStorage: false }));
    expect(l4.flash.waitStates).toBe(5);
    // The build the latency constants are for: Nicla Vision's Arduino -Os build, a vendor build elsewhere.
    expect(doc.boards.find((b: { name: string }) => b.name === 'nicla-vision').build).toEqual(expect.objectContaining({ optimization: '-Os' }));
    expect(doc.boards.filter((b: { build: unknown }) => b.build !== null).map((b: { name: string }) => b.name)).toEqual(['nicla-vision']);
  });
});

describe('mcusim latency on boards', () => {
  it('keeps the contract: totalMs, ops with index/kind/cycles/ms, board, library, engine', async () => {
    const r = await mcusim('latency', KWS, '--board', 'nrf5340-dk', '--kernels', 'cmsis-nn', '--engine', 'aot', '--json', '-q');
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toEqual(expect.objectContaining({ board: 'nrf5340-dk', library: 'cmsis-nn', engine: 'aot', totalMs: expect.any(Number), breakdown: expect.any(Object) }));
    expect(doc.ops).toHaveLength(13);
    expect(doc.ops[2]).toEqual(expect.objectContaining({ index: 2, kind: 'conv2d', path: 'arm_convolve_1x1_s8_fast', cycles: expect.any(Number), ms: expect.any(Number) }));
    const sum = doc.ops.reduce((a: number, o: { ms: number }) => a + o.ms, 0);
    expect(Math.abs(sum - doc.totalMs)).toBeLessThan(0.01);
    const tflm = JSON.parse((await mcusim('latency', KWS, '--board', 'nrf5340-dk', '--json')).stdout);
    expect(tflm.engine).toBe('tflm');
    expect(tflm.totalMs).toBeGreaterThan(doc.totalMs);
  });
  it('prints per-op cycles, ms and share, and one line per board with --boards all', async () => {
    const t = await mcusim('latency', KWS, '--board', 'nucleo-l4r5zi');
    expect(t.stdout).toMatch(/arm_depthwise_conv_3x3_s8\s+\d+\s+\d+\s+\d+\s+[\d.]+\s+[\d.]+%/);
    expect(t.stdout).toMatch(/where the [\d,]+ instructions of one Invoke go/);
    const all = await mcusim('latency', KWS, '--boards', 'all', '--json');
    expect(all.code, all.stderr).toBe(0);
    const doc = JSON.parse(all.stdout);
    expect(doc.boards).toHaveLength(14);
    const ms = (b: string): number => doc.boards.find((x: { board: string }) => x.board === b).totalMs;
    expect(ms('nano33-ble-sense')).toBeGreaterThan(ms('nucleo-l4r5zi'));
    expect(ms('nucleo-h743zi2')).toBeLessThan(ms('disco-f746ng'));
  });
  it('--validate reports every packaged public cell, the summary and leave-one-board-out', async () => {
    const r = await mcusim('latency', '--validate', '--json');
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.cells).toHaveLength(20);
    expect(doc.summary.gatedCells).toBe(12);
    // The v1.2 EK-RA8D1 Helium cells (VWW of v1.1+ left out as in the gate): nothing fitted on them, within
    // the limit for held-back rows (worst 30%).
    expect(doc.summary.helium.cells).toBe(3);
    expect(doc.summary.helium.worst).toBeLessThanOrEqual(0.3);
    expect(doc.summary.mae).toBeLessThanOrEqual(0.1);
    expect(doc.summary.loboMae).toEqual(expect.any(Number));
  });
  it('refuses bad values and combinations with E_USAGE (exit 2)', async () => {
    for (const args of [[KWS, '--engine', 'tvm'], [KWS, '--boards', 'esp32'], [KWS, '--boards', 'all', '--storage', 'internal'], ['--validate', KWS], [KWS, '--csv', 'x.csv'], []]) {
      const r = await mcusim('latency', ...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^E_USAGE: /);
    }
  });
});
