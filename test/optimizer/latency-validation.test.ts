// Honesty checks on the latency model (issues 44, 54), against published measurements: the MLPerf Tiny
// open-engine CSV (shipped constants: MAE <= 8%, worst <= 20%; leave-one-board-out <= 12%), no TFLM + CMSIS-NN estimate faster than a proprietary engine on the same board and
// benchmark, reference vs CMSIS-NN 8-15x on an STM32H743 (the tinyengine table measures 10-12x), and
// the fit recovering a constant it was given.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Bench, FitPoint } from '../../src/optimizer/index.ts';
import { fitConstant, fitGroups, fitM7, fitTinySegM7, mlperfZooModels, parseLatencyCsv, predictMs, rawCycles, tinyengineCyclesPerMac, validateLatency } from '../../src/optimizer/index.ts';
import { MLPERF_TINY_OPEN_CSV, MLPERF_TINY_PROPRIETARY_CSV, estimateLatency, familyConstant, getTarget, niclaVision } from '../../src/sim/index.ts';
import { ORACLE, describeWithData } from '../oracle-paths.ts';

// The zoo's MLPerf Tiny models (op for op the public files, test/ir/zoo/mlperf-zoo.test.ts) and the
// published cells the package ships (equal to the oracle's CSVs, checked below when the data is there).
const models = mlperfZooModels();
const PACKAGED: Record<string, string> = { 'mlperf-tiny-open.csv': MLPERF_TINY_OPEN_CSV, 'mlperf-tiny-proprietary.csv': MLPERF_TINY_PROPRIETARY_CSV };
const csv = (name: string): string => PACKAGED[name] ?? '';

describeWithData('latency', 'the packaged MLPerf Tiny cells', () => {
  it('equal the oracle CSVs, plus the v1.2 EK-RA8D1 (Helium) row the oracle\'s public half does not carry', () => {
    for (const [name, text] of Object.entries(PACKAGED)) {
      const packaged = parseLatencyCsv(text);
      const oracle = parseLatencyCsv(readFileSync(`${ORACLE}/latency/${name}`, 'utf8'));
      const later = packaged.filter((c) => c.round === 'v1.2' && c.board === 'ek-ra8d1');
      expect(packaged.filter((c) => !later.includes(c))).toEqual(oracle);
      expect(later.every((c) => !c.gated)).toBe(true);
    }
  });
});

describe('parseLatencyCsv', () => {
  it('reads every cell, gates as the acceptance script does, maps boards and engines', () => {
    const cells = parseLatencyCsv(csv('mlperf-tiny-open.csv'));
    expect(cells).toHaveLength(20);
    expect(cells.filter((c) => c.gated)).toHaveLength(12);
    expect(cells.filter((c) => c.round === 'v0.5').every((c) => !c.gated)).toBe(true);
    expect(cells.filter((c) => c.board === 'ek-ra8d1').map((c) => [c.bench, c.gated])).toEqual([['kws', false], ['vww', false], ['ic', false], ['ad', false]]);
    expect(new Set(cells.map((c) => c.board))).toEqual(new Set(['nucleo-l4r5zi', 'ek-ra6m4', 'nrf5340-dk', 'ek-ra8d1']));
    expect(cells.find((c) => c.board === 'nrf5340-dk')?.engine).toBe('aot');
    expect(cells.find((c) => c.board === 'ek-ra6m4')?.engine).toBe('tflm');
    const late = parseLatencyCsv('round,board,core,engine_class,kws_ms,vww_ms\nv1.1,EK-RA6M4,Cortex-M33,TFLM+CMSIS-NN,10,20\nv1.2,EK-RA8D1,Cortex-M85 (Helium),TFLM+CMSIS-NN,1,2\n');
    expect(late.map((c) => [c.bench, c.gated])).toEqual([['kws', true], ['vww', false], ['kws', false], ['vww', false]]);
  });
});

describe('the shipped constants are what scripts/fit-latency.ts fits', () => {
  const close = (a: number, b: number): void => expect(Math.abs(a / b - 1)).toBeLessThan(1e-5);
  it('Cortex-M7: vendor build from the tinyengine H743 table, -Os build (nicla-vision) from TinySeg Table 5', () => {
    const h743 = getTarget('nucleo-h743zi2');
    close(fitM7('cmsis-nn'), familyConstant(h743, 'cmsis-nn').value);
    close(fitM7('reference'), familyConstant(h743, 'reference').value);
    close(fitTinySegM7(), familyConstant(niclaVision, 'cmsis-nn').value);
    expect(familyConstant(niclaVision, 'cmsis-nn').source).toMatch(/-Os/);
    expect(getTarget('portenta-h7').build).toBeUndefined();
    // The table's nets run 3.8-4.8 cycles per MAC with CMSIS-NN, 44-48 with the reference kernels.
    expect(tinyengineCyclesPerMac('cmsis-nn')).toBeGreaterThan(3.8);
    expect(tinyengineCyclesPerMac('cmsis-nn')).toBeLessThan(4.8);
    expect(tinyengineCyclesPerMac('reference') / tinyengineCyclesPerMac('cmsis-nn')).toBeCloseTo(10.9, 1);
  });
  it('Cortex-M4 / M33 from the gated MLPerf cells', () => {
    const points: FitPoint[] = parseLatencyCsv(csv('mlperf-tiny-open.csv')).filter((c) => c.gated && c.board !== null).map((c) => {
      const t = getTarget(c.board ?? '');
      return { board: t.name, family: t.core.family, raw: rawCycles(models[c.bench].graph, t, c.engine), target: t, measuredMs: c.measuredMs };
    });
    close(fitGroups(points)['cortex-m4/m33']?.value ?? NaN, familyConstant(getTarget('nucleo-l4r5zi'), 'cmsis-nn').value);
  });
  it('float-model rows of the proprietary CSV bound nothing', () => {
    const prop = parseLatencyCsv(csv('mlperf-tiny-proprietary.csv'));
    expect(prop.filter((c) => c.floatModel).map((c) => `${c.csvBoard} ${c.bench}`).sort()).toEqual(
      ['CY8CPROTO-062-4343W ad', 'CY8CPROTO-062-4343W ic', 'CY8CPROTO-062-4343W vww', 'NUCLEO-H7A3ZI-Q ad', 'NUCLEO-H7A3ZI-Q ic', 'NUCLEO-H7A3ZI-Q vww']);
    const v = validateLatency(parseLatencyCsv(csv('mlperf-tiny-open.csv')).slice(0, 1), models, prop);
    expect(v.lowerBounds).toHaveLength(prop.filter((c) => c.board !== null && !c.floatModel).length);
  });
});

describe('fitConstant', () => {
  it('recovers the constant that generated the measurements, engine cycles left out of the scale', () => {
    const t = getTarget('nrf5340-dk');
    const points: FitPoint[] = [1e6, 3e6, 5e5].map((kernel) => {
      const raw = { kernel, engine: 2000 };
      return { board: t.name, family: t.core.family, raw, target: t, measuredMs: predictMs(raw, t, 1.7) };
    });
    expect(fitConstant(points)).toBeCloseTo(1.7, 9);
    expect(fitGroups(points)).toEqual({});
    const other = getTarget('ek-ra6m4');
    const both = [...points, { ...points[0]!, board: other.name, target: other, measuredMs: predictMs(points[0]!.raw, other, 1.7) }];
    expect(fitGroups(both)['cortex-m4/m33']?.value).toBeCloseTo(1.7, 9);
  });
});

describe('latency model vs MLPerf Tiny (public open-engine rows)', () => {
  const v = validateLatency(parseLatencyCsv(csv('mlperf-tiny-open.csv')), models);
  it('shipped constants: gated MAE <= 8%, worst <= 20%; leave-one-board-out MAE <= 12%', () => {
    expect(v.summary.gatedCells).toBe(12);
    expect(v.summary.missing).toBe(0);
    expect(v.summary.mae).toBeLessThanOrEqual(0.08);
    expect(v.summary.worst).toBeLessThanOrEqual(0.20);
    expect(v.summary.loboMae).toBeLessThanOrEqual(0.12);
    expect(v.refit['cortex-m4/m33']?.boards).toEqual(['ek-ra6m4', 'nrf5340-dk', 'nucleo-l4r5zi']);
  });
  it('the CLI contract totals are the validation predictions (same engine per row)', () => {
    const c = v.cells.find((x) => x.board === 'ek-ra6m4' && x.bench === 'kws');
    const r = estimateLatency(models.kws.graph, { target: getTarget('ek-ra6m4'), library: 'cmsis-nn', engine: 'tflm' });
    expect(Math.abs(r.totalMs - (c?.predictedMs ?? 0))).toBeLessThan(0.01);
  });
});

/**
 * Proprietary cells the TFLM + CMSIS-NN estimate is known to fall below (the lead's report lists them):
 * on nucleo-l4r5zi the v0.7 X-CUBE-AI 7.1 row is slower than the open microTVM + CMSIS-NN row on AD (the
 * CSV contradicts the bound there) and 2% faster than it on KWS, where the model is 5% under that row.
 */
const KNOWN_BELOW = new Set(['v0.7 nucleo-l4r5zi kws', 'v0.7 nucleo-l4r5zi ad']);

describe('honesty', () => {
  const v = validateLatency(parseLatencyCsv(csv('mlperf-tiny-open.csv')), models, parseLatencyCsv(csv('mlperf-tiny-proprietary.csv')));
  it('no TFLM + CMSIS-NN estimate is faster than a proprietary engine measured on the same board and benchmark (known gaps listed)', () => {
    expect(v.lowerBounds.length).toBeGreaterThan(40);
    for (const c of v.lowerBounds) {
      const key = `${c.round} ${c.board} ${c.bench}`;
      if (KNOWN_BELOW.has(key)) expect(c.estimateMs / c.measuredMs, key).toBeGreaterThan(0.9);
      else expect(c.ok, `${key} ${c.engineName}: ${c.estimateMs} vs ${c.measuredMs}`).toBe(true);
    }
    // The AD bound is below an open CMSIS-NN engine's own measurement on that board: reported as such.
    expect(v.lowerBounds.find((c) => c.round === 'v0.7' && c.board === 'nucleo-l4r5zi' && c.bench === 'ad')?.openMeasuredFasterMs).toBe(8.605);
    expect(v.lowerBounds.find((c) => c.round === 'v0.7' && c.board === 'nucleo-l4r5zi' && c.bench === 'kws')?.openMeasuredFasterMs).toBeNull();
  });
  it('the lower-bound estimates are the CLI contract totals', () => {
    for (const c of v.lowerBounds.filter((x) => x.bench === 'kws').slice(0, 3)) {
      const est = estimateLatency(models.kws.graph, { target: getTarget(c.board), library: 'cmsis-nn', engine: 'tflm' }).totalMs;
      expect(Math.abs(est - c.estimateMs), c.board).toBeLessThan(0.01);
    }
  });
  it('on nucleo-h743zi2 the reference kernels of VWW and IC are 8-15x the CMSIS-NN ones', () => {
    const t = getTarget('nucleo-h743zi2');
    for (const b of ['vww', 'ic'] as const) {
      const ratio = estimateLatency(models[b].graph, { target: t, library: 'reference' }).totalMs / estimateLatency(models[b].graph, { target: t, library: 'cmsis-nn' }).totalMs;
      expect(ratio, b).toBeGreaterThanOrEqual(8);
      expect(ratio, b).toBeLessThanOrEqual(15);
    }
  });
  it('raw cycles grow with the work: IC > VWW > KWS > AD on the DSP / plain-C cores, VWW > IC on Helium', () => {
    for (const name of ['nucleo-l4r5zi', 'nucleo-h743zi2', 'rpi-pico', 'ek-ra8d1']) {
      const t = getTarget(name);
      const k = (b: Bench): number => rawCycles(models[b].graph, t, 'tflm').kernel;
      // The MVE build runs IC's wide convolutions 16 MACs an instruction but VWW's depthwise layers
      // far less densely: instructions-m55/real counts 6.56 M instructions for VWW and 4.91 M for IC.
      if (t.core.mve) expect(k('vww'), name).toBeGreaterThan(k('ic'));
      else expect(k('ic'), name).toBeGreaterThan(k('vww'));
      expect(Math.min(k('ic'), k('vww')), name).toBeGreaterThan(k('kws'));
      expect(k('kws'), name).toBeGreaterThan(k('ad'));
    }
  });
});
