// Latency estimates against published MLPerf Tiny measurements (issue 44): parses the oracle CSV
// (oracle/latency/README.md), predicts every cell through the kernel cost model, fits the one constant
// per (core family, CMSIS-NN) where two or more boards of the family have gated cells, and reports
// leave-one-board-out errors (constants refitted without the predicted board; a family left with fewer
// than two boards falls back to its source constant). Gating as ../shared/acceptance/latency-boards.
import type { Graph, Model } from '../ir/index.ts';
import { UsageError, buildZooModel } from '../ir/index.ts';
import type { CoreFamily, Engine, KernelLibrary, TargetProfile } from '../sim/index.ts';
import { CONSTANT_GROUP, FAMILY_CONSTANTS, cyclesToUs, familyConstant, getTarget, interpreterCost, niclaVision, opComputeCycles, opMacs } from '../sim/index.ts';

export type Bench = 'kws' | 'vww' | 'ic' | 'ad';
export const BENCHES: readonly Bench[] = ['kws', 'vww', 'ic', 'ad'];

/** MLPerf Tiny board names (CSV `board`) -> mcusim board profiles. */
export const MLPERF_BOARDS: Readonly<Record<string, string>> = {
  'NUCLEO-L4R5ZI': 'nucleo-l4r5zi', 'EK-RA6M4': 'ek-ra6m4', 'nRF5340 DK': 'nrf5340-dk', 'NuMaker-M467HJ': 'numaker-m467hj',
  'EK-RA8D1': 'ek-ra8d1', 'DISCO-F746NG': 'disco-f746ng', 'NUCLEO-H7A3ZI-Q': 'nucleo-h7a3zi-q', 'NUCLEO-U575ZI-Q': 'nucleo-u575zi-q',
  'NUCLEO-H743ZI2': 'nucleo-h743zi2',
};

export interface LatencyCell {
  readonly round: string;
  readonly csvBoard: string;
  readonly board: string | null;
  readonly engine: Engine;
  readonly engineName: string;
  readonly bench: Bench;
  readonly measuredMs: number;
  readonly gated: boolean;
  /** The row ran the benchmark's float model (its engine or system names say so): no bound on an int8 build. */
  readonly floatModel: boolean;
  /** A cell the gate would take but for its Helium core (no public Helium cell to fit on): reported apart. */
  readonly helium: boolean;
}

function parseLine(l: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (const ch of l) {
    if (ch === '"') quoted = !quoted;
    else if (ch === ',' && !quoted) { out.push(cur); cur = ''; } else cur += ch;
  }
  out.push(cur);
  return out;
}

/** Every measured cell of an MLPerf Tiny latency CSV (header: round, board, core, engine_class, kws_ms, ...). */
export function parseLatencyCsv(text: string): LatencyCell[] {
  const lines = text.trim().split(/\r?\n/);
  const head = parseLine(lines[0] ?? '');
  for (const need of ['round', 'board', 'core', 'engine_class']) {
    if (!head.includes(need)) throw new UsageError(`latency CSV: no '${need}' column`);
  }
  const cells: LatencyCell[] = [];
  for (const l of lines.slice(1)) {
    const r = Object.fromEntries(parseLine(l).map((v, i) => [head[i] ?? `col${i}`, v]));
    const engineClass = r['engine_class'] ?? '';
    const engine: Engine = /^TFLM/.test(engineClass) ? 'tflm' : 'aot';
    for (const bench of BENCHES) {
      const ms = Number(r[`${bench}_ms`]);
      if (r[`${bench}_ms`] === undefined || r[`${bench}_ms`] === '' || !Number.isFinite(ms)) continue;
      const round = r['round'] ?? '';
      // Engines with kernels of their own (ONNC, X-CUBE-AI, ...) are reported, never gated.
      const ownKernels = !/^(TFLM|microTVM)\+CMSIS-NN$/.test(engineClass);
      const open = round !== 'v0.5' && !ownKernels && !(bench === 'vww' && round >= 'v1.1');
      const heliumCore = /Helium/.test(r['core'] ?? '');
      const gated = open && !heliumCore;
      const csvBoard = r['board'] ?? '';
      const floatModel = /(^|[^a-z])float([^a-z]|$)/i.test(`${r['engine'] ?? ''} ${r['system_dir'] ?? ''}`);
      cells.push({ round, csvBoard, board: MLPERF_BOARDS[csvBoard] ?? null, engine, engineName: engineClass, bench, measuredMs: ms, gated, floatModel, helium: open && heliumCore });
    }
  }
  return cells;
}

/** Cycles of one inference before the family constant: every op (instructions x core timing + flash
 * stalls) and the interpreter's own loop. */
export interface RawCycles {
  readonly kernel: number;
}

export function rawCycles(graph: Graph, target: TargetProfile, engine: Engine, library: KernelLibrary = 'cmsis-nn'): RawCycles {
  let kernel = interpreterCost(graph, target, library, engine, 1).cycles;
  graph.ops.forEach((_, i) => { kernel += opComputeCycles(graph, i, target, library, engine, 1).cycles; });
  return { kernel };
}

/** The four MLPerf Tiny benchmarks as the zoo writes them (op for op the public files; test/ir/zoo/mlperf-zoo.test.ts). */
export function mlperfZooModels(): Record<Bench, Model> {
  return { kws: buildZooModel('mlperf-kws'), vww: buildZooModel('mlperf-vww'), ic: buildZooModel('mlperf-ic'), ad: buildZooModel('mlperf-ad') };
}

export function predictMs(raw: RawCycles, target: TargetProfile, constant: number): number {
  return cyclesToUs(target.mainCore, constant * raw.kernel) / 1000;
}

/** One measurement a constant may be fitted on. */
export interface FitPoint {
  readonly board: string;
  readonly family: CoreFamily;
  readonly raw: RawCycles;
  readonly target: TargetProfile;
  readonly measuredMs: number;
}

/** Relative error of `constant` on each point. */
function relErrors(points: readonly FitPoint[], constant: number): number[] {
  return points.map((p) => Math.abs(predictMs(p.raw, p.target, constant) / p.measuredMs - 1));
}

/**
 * The constant minimizing the worst relative error over the points (the acceptance bounds the worst
 * cell as well as the mean; the minimax fit keeps every board inside one band instead of letting the
 * majority pull one board out). The worst error is convex in the constant: golden-section search.
 */
export function fitConstant(points: readonly FitPoint[]): number {
  if (points.length === 0) return 1;
  const worst = (k: number): number => Math.max(...relErrors(points, k));
  let lo = 0.01;
  let hi = 100;
  const g = (Math.sqrt(5) - 1) / 2;
  let x1 = hi - g * (hi - lo);
  let x2 = lo + g * (hi - lo);
  for (let i = 0; i < 200 && hi - lo > 1e-9; i++) {
    if (worst(x1) <= worst(x2)) { hi = x2; x2 = x1; x1 = hi - g * (hi - lo); } else { lo = x1; x1 = x2; x2 = lo + g * (hi - lo); }
  }
  return (lo + hi) / 2;
}

export interface GroupFit {
  readonly value: number;
  readonly boards: string[];
  readonly cells: number;
}

/** Constant groups (CONSTANT_GROUP) with gated points on at least two boards get a fitted constant. */
export function fitGroups(points: readonly FitPoint[]): Record<string, GroupFit> {
  const out: Record<string, GroupFit> = {};
  for (const g of [...new Set(points.map((p) => CONSTANT_GROUP[p.family]))]) {
    const ps = points.filter((p) => CONSTANT_GROUP[p.family] === g);
    const boards = [...new Set(ps.map((p) => p.board))].sort();
    if (boards.length >= 2) out[g] = { value: fitConstant(ps), boards, cells: ps.length };
  }
  return out;
}

/** TinySeg LCTES'24 Table 5: the original Tiny U-Net (zoo:tiny-unet) on Nicla Vision, TFLM + CMSIS-NN conv. */
export const TINYSEG_ORIGINAL_MS = 1190;

/** The Cortex-M7 + CMSIS-NN constant of a -Os build from TinySeg Table 5's original model (Nicla Vision's Arduino build). */
export function fitTinySegM7(): number {
  const raw = rawCycles(buildZooModel('tiny-unet').graph, niclaVision, 'tflm');
  return fitConstant([{ board: niclaVision.name, family: 'cortex-m7', raw, target: niclaVision, measuredMs: TINYSEG_ORIGINAL_MS }]);
}

/**
 * The tinyengine README's "Measured Results" on an STM32H743 at 480 MHz (-Ofast; TFLM @713b6ed, CMSIS-NN
 * @011bf32): latency in ms of each net with TFLM's reference kernels and with CMSIS-NN; MACs from the mcunet
 * README's model list (net ids mapped by mcunet/model_zoo.py). Nets OOM on TFLM there are left out.
 */
export const TINYENGINE_H743: readonly { readonly net: string; readonly macs: number; readonly referenceMs: number; readonly cmsisMs: number }[] = [
  { net: 'mcunet-vww0 (mcunet-10fps-vww)', macs: 6.0e6, referenceMs: 587, cmsisMs: 53 },
  { net: 'mcunet-vww1 (mcunet-5fps-vww)', macs: 11.6e6, referenceMs: 1120, cmsisMs: 97 },
  { net: 'mcunet-vww2 (mcunet-320kB-vww)', macs: 55.8e6, referenceMs: 5310, cmsisMs: 478 },
  { net: 'mcunet-in0 (mcunet-10fps)', macs: 6.4e6, referenceMs: 586, cmsisMs: 51 },
  { net: 'mcunet-in1 (mcunet-5fps)', macs: 12.8e6, referenceMs: 1227, cmsisMs: 103 },
  { net: 'mcunet-in2 (mcunet-256kB)', macs: 67.3e6, referenceMs: 6463, cmsisMs: 642 },
  { net: 'mcunet-in3 (mcunet-320kB)', macs: 81.8e6, referenceMs: 7821, cmsisMs: 770 },
  { net: 'proxyless-w0.3 (proxyless-320kB)', macs: 38.3e6, referenceMs: 3801, cmsisMs: 380 },
];

/** Geometric mean cycles per MAC of the tinyengine H743 table for a library. */
export function tinyengineCyclesPerMac(library: KernelLibrary): number {
  const cyclesPerMs = getTarget('nucleo-h743zi2').mainCore.clockHz / 1000; // the table's 480 MHz
  const logs = TINYENGINE_H743.map((n) => Math.log(((library === 'reference' ? n.referenceMs : n.cmsisMs) * cyclesPerMs) / n.macs));
  return Math.exp(logs.reduce((a, x) => a + x, 0) / logs.length);
}

/** The model those nets are fitted through: the zoo's MobileNetV2 (the nets' inverted residual blocks; mbv2-w0.35 is in the table). */
export const TINYENGINE_PROXY = 'mobilenet-v2-0.35-224';

/**
 * The Cortex-M7 constant of a vendor (-O2 / -O3) build for a library: the one that gives the proxy on
 * nucleo-h743zi2 the tinyengine table's cycles per MAC.
 */
export function fitM7(library: KernelLibrary): number {
  const t = getTarget('nucleo-h743zi2');
  const g = buildZooModel(TINYENGINE_PROXY).graph;
  const macs = g.ops.reduce((a, _, i) => a + opMacs(g, i), 0);
  return (tinyengineCyclesPerMac(library) * macs) / rawCycles(g, t, 'tflm', library).kernel;
}

export interface CellResult extends LatencyCell {
  readonly predictedMs: number | null;
  readonly error: number | null;
  /** Predicted with constants fitted without this cell's board. */
  readonly loboMs: number | null;
  readonly loboError: number | null;
}

export interface ValidationSummary {
  readonly gatedCells: number;
  readonly missing: number;
  readonly mae: number;
  readonly worst: number;
  readonly loboMae: number;
  readonly loboWorst: number;
  /** The Helium cells (`LatencyCell.helium`), predicted with the TRM timings alone: count, mean and worst abs error. */
  readonly helium: { readonly cells: number; readonly mae: number; readonly worst: number } | null;
}

/** A faster engine's measurement on a board: a TFLM + CMSIS-NN estimate below it is wrong. */
export interface LowerBoundCheck {
  readonly round: string;
  readonly board: string;
  readonly bench: Bench;
  readonly engineName: string;
  readonly measuredMs: number;
  readonly estimateMs: number;
  readonly ok: boolean;
  /** The fastest gated open-engine (CMSIS-NN kernels) measurement of the CSV on the same board and benchmark,
   * when it is itself below this bound: the data then contradicts the bound, whatever the model says. */
  readonly openMeasuredFasterMs: number | null;
}

export interface Validation {
  readonly cells: readonly CellResult[];
  readonly summary: ValidationSummary;
  readonly refit: Record<string, GroupFit>;
  /** TFLM + CMSIS-NN estimates against proprietary engines' measurements (each must be slower). */
  readonly lowerBounds: readonly LowerBoundCheck[];
}

function summarize(cells: readonly CellResult[]): ValidationSummary {
  const gated = cells.filter((c) => c.gated);
  const ok = gated.filter((c) => c.error !== null);
  const abs = ok.map((c) => Math.abs(c.error ?? 0));
  const lobo = ok.map((c) => Math.abs(c.loboError ?? 0));
  const mean = (xs: number[]): number => (xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length);
  const heliumAbs = cells.filter((c) => c.helium && c.error !== null).map((c) => Math.abs(c.error ?? 0));
  const helium = heliumAbs.length === 0 ? null : { cells: heliumAbs.length, mae: mean(heliumAbs), worst: Math.max(...heliumAbs) };
  return { gatedCells: ok.length, missing: gated.length - ok.length, mae: mean(abs), worst: Math.max(0, ...abs), loboMae: mean(lobo), loboWorst: Math.max(0, ...lobo), helium };
}

/** Predicts every cell with the shipped constants, and leave-one-board-out with constants refitted on
 * the rest; `proprietary` cells (faster engines) bound the TFLM + CMSIS-NN estimates from below, except
 * rows of a float model. */
export function validateLatency(cells: readonly LatencyCell[], models: Readonly<Record<Bench, Model>>, proprietary: readonly LatencyCell[] = []): Validation {
  const memo = new Map<string, RawCycles>();
  const rawOf = (c: LatencyCell, t: TargetProfile): RawCycles => {
    const key = `${c.bench}|${t.name}|${c.engine}`;
    let r = memo.get(key);
    if (r === undefined) { r = rawCycles(models[c.bench].graph, t, c.engine); memo.set(key, r); }
    return r;
  };
  const points: (FitPoint & { cell: LatencyCell })[] = [];
  for (const c of cells) {
    if (!c.gated || c.board === null) continue;
    const t = getTarget(c.board);
    points.push({ cell: c, board: t.name, family: t.core.family, raw: rawOf(c, t), target: t, measuredMs: c.measuredMs });
  }
  const results = cells.map((c): CellResult => {
    if (c.board === null) return { ...c, predictedMs: null, error: null, loboMs: null, loboError: null };
    const t = getTarget(c.board);
    const raw = rawOf(c, t);
    const shipped = familyConstant(t, 'cmsis-nn').value;
    const pred = predictMs(raw, t, shipped);
    const fitted = fitGroups(points.filter((p) => p.board !== t.name))[CONSTANT_GROUP[t.core.family]];
    const lobo = predictMs(raw, t, fitted?.value ?? sourceConstant(t.core.family));
    return { ...c, predictedMs: pred, error: pred / c.measuredMs - 1, loboMs: lobo, loboError: lobo / c.measuredMs - 1 };
  });
  // A float model's time bounds nothing about the int8 model TFLM runs.
  const lowerBounds = proprietary.filter((c) => c.board !== null && !c.floatModel).map((c): LowerBoundCheck => {
    const t = getTarget(c.board ?? '');
    const estimateMs = predictMs(rawOf({ ...c, engine: 'tflm' }, t), t, familyConstant(t, 'cmsis-nn').value);
    const open = Math.min(...cells.filter((x) => x.gated && x.board === c.board && x.bench === c.bench).map((x) => x.measuredMs));
    const openMeasuredFasterMs = open < c.measuredMs ? open : null;
    return { round: c.round, board: t.name, bench: c.bench, engineName: c.engineName, measuredMs: c.measuredMs, estimateMs, ok: estimateMs > c.measuredMs, openMeasuredFasterMs };
  });
  return { cells: results, summary: summarize(results), refit: fitGroups(points), lowerBounds };
}

/** A family's constant when the CSV left without a board cannot fit it: the shipped one where it was fitted
 * on another source (the tinyengine table for the Cortex-M7), else 1 (the TRM unit costs alone). */
export function sourceConstant(family: CoreFamily): number {
  const shipped = FAMILY_CONSTANTS[family]['cmsis-nn'];
  return /MLPerf Tiny/.test(shipped.source) ? 1 : shipped.value;
}
