// `mcusim latency MODEL --boards all|A,B` (one line per board) and `mcusim latency --validate
// [--csv FILE]` (every cell of an MLPerf Tiny latency CSV predicted, with error, summary and
// leave-one-board-out; optimizer/latency-validation.ts). The CSV defaults to
// $MCUSIM_DATA/latency/mlperf-tiny-open.csv, else ../shared/oracle/latency/ from the working directory
// (the project root); the models are looked up beside it (models-real/ one folder up, AD in latency/).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Model } from '../ir/index.ts';
import { UsageError } from '../ir/index.ts';
import type { Bench, CellResult, Validation } from '../optimizer/index.ts';
import { parseLatencyCsv, validateLatency } from '../optimizer/index.ts';
import type { Engine, KernelLibrary, LatencyReport } from '../sim/index.ts';
import { estimateLatency, getTarget, listTargets } from '../sim/index.ts';
import { renderTable } from './format.ts';
import { loadModel, readInputFile } from './load-model.ts';
import type { InstructionSet } from './latency-instructions.ts';
import { validateInstructionSets } from './latency-instructions.ts';

/** Board names of `--boards all|A,B,...`, each checked. */
export function boardList(spec: string): string[] {
  const names = spec === 'all' ? [...listTargets()] : spec.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (names.length === 0) throw new UsageError('--boards needs "all" or a comma-separated list of boards');
  for (const n of names) getTarget(n);
  return names;
}

export interface BoardLine {
  readonly board: string;
  readonly core: string;
  readonly clockMhz: number;
  readonly totalMs: number;
  readonly heaviestOp: { readonly index: number; readonly kind: string; readonly share: number } | null;
}

export function latencyOnBoards(model: Model, boards: readonly string[], library: KernelLibrary, engine: Engine): BoardLine[] {
  return boards.map((name) => {
    const target = getTarget(name);
    const r: LatencyReport = estimateLatency(model.graph, { target, library, engine });
    const top = [...r.ops].sort((a, b) => b.share - a.share)[0];
    return {
      board: name, core: target.core.family, clockMhz: target.mainCore.clockHz / 1e6, totalMs: r.totalMs,
      heaviestOp: top === undefined ? null : { index: top.index, kind: top.kind, share: top.share },
    };
  });
}

export function boardsText(modelArg: string, lines: readonly BoardLine[], library: KernelLibrary, engine: Engine): string {
  const rows = lines.map((l) => [l.board, l.core, l.clockMhz, l.totalMs.toFixed(2), l.heaviestOp === null ? '-' : `${l.heaviestOp.index} ${l.heaviestOp.kind} ${(l.heaviestOp.share * 100).toFixed(1)}%`]);
  return `${renderTable(['board', 'core', 'MHz', 'total ms', 'heaviest op (share)'], rows)}\n${modelArg}: kernels ${library}, engine ${engine}\n`;
}

function defaultCsv(): string {
  const data = process.env['MCUSIM_DATA'];
  if (data !== undefined && data !== '') return join(data, 'latency', 'mlperf-tiny-open.csv');
  // A checkout's own copy (testdata/), else the oracle folder beside it.
  const inRepo = resolve('testdata', 'latency', 'mlperf-tiny-open.csv');
  return existsSync(inRepo) ? inRepo : resolve('..', 'shared', 'oracle', 'latency', 'mlperf-tiny-open.csv');
}

function benchModels(csv: string): Record<Bench, Model> {
  const dir = dirname(resolve(csv));
  const find = (name: string): string => {
    const tries = [join(dir, '..', 'models-real', name), join(dir, name), resolve('testdata', 'models-real', name), resolve('..', 'shared', 'oracle', 'models-real', name)];
    const hit = tries.find((p) => existsSync(p));
    if (hit === undefined) throw new UsageError(`--validate: model '${name}' not found (looked in ${tries.join(', ')})`);
    return hit;
  };
  return {
    kws: loadModel(find('mlperf_kws_dscnn.tflite')),
    vww: loadModel(find('mlperf_vww_96.tflite')),
    ic: loadModel(find('mlperf_ic_resnet8.tflite')),
    ad: loadModel(find('mlperf_ad_fc_autoencoder.tflite')),
  };
}

/** The data folder holding instructions-m7/ and instructions-m55/: the CSV's (one folder up), else
 * $MCUSIM_DATA, else ../shared/oracle from the working directory (a CSV shipped in the package has none). */
function instructionDataRoot(csv: string): string {
  const candidates = [join(dirname(resolve(csv)), '..'), process.env['MCUSIM_DATA'] ?? '', resolve('..', 'shared', 'oracle')].filter((d) => d !== '');
  return candidates.find((d) => existsSync(join(d, 'instructions-m7')) || existsSync(join(d, 'instructions-m55'))) ?? candidates[0] ?? '.';
}

export function runValidation(csvOption: string | undefined): { csv: string; validation: Validation; instructions: InstructionSet[] } {
  const csv = csvOption ?? defaultCsv();
  const text = new TextDecoder().decode(readInputFile(csv, 'latency CSV'));
  const proprietaryCsv = join(dirname(resolve(csv)), 'mlperf-tiny-proprietary.csv');
  const proprietary = existsSync(proprietaryCsv) ? parseLatencyCsv(readFileSync(proprietaryCsv, 'utf8')) : [];
  const validation = validateLatency(parseLatencyCsv(text), benchModels(csv), proprietary);
  return { csv, validation, instructions: validateInstructionSets(instructionDataRoot(csv)) };
}

const pct = (x: number | null): string => (x === null ? '-' : `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`);

export function validationText(csv: string, v: Validation): string {
  const rows = v.cells.map((c: CellResult) => [
    c.round, c.board ?? `${c.csvBoard} (no profile)`, c.engine, c.bench, c.measuredMs.toFixed(2),
    c.predictedMs === null ? '-' : c.predictedMs.toFixed(2), pct(c.error), pct(c.loboError), c.gated ? 'yes' : 'no',
  ]);
  const s = v.summary;
  const refit = Object.entries(v.refit).map(([g, f]) => `${g} ${f.value.toFixed(4)} on ${f.boards.join(', ')}`).join('; ');
  return [
    renderTable(['round', 'board', 'engine', 'bench', 'measured ms', 'predicted ms', 'error', 'LOBO error', 'gated'], rows),
    '',
    `${csv}: gated cells ${s.gatedCells} (missing ${s.missing}); shipped constants: mean abs error ${(s.mae * 100).toFixed(1)}%, worst ${(s.worst * 100).toFixed(1)}%`,
    `leave-one-board-out (constants refitted without the predicted board): mean abs error ${(s.loboMae * 100).toFixed(1)}%, worst ${(s.loboWorst * 100).toFixed(1)}%`,
    `constants this CSV fits: ${refit === '' ? 'none (no family with two boards)' : refit}`,
    v.lowerBounds.length === 0 ? 'no proprietary-engine rows beside the CSV' :
      `proprietary engines on the same board and benchmark: ${v.lowerBounds.filter((c) => c.ok).length}/${v.lowerBounds.length} TFLM + CMSIS-NN estimates slower than them${v.lowerBounds.some((c) => !c.ok) ? ` (FASTER: ${v.lowerBounds.filter((c) => !c.ok).map((c) => `${c.board} ${c.bench} ${c.round} ${c.engineName} ${c.estimateMs.toFixed(1)} < ${c.measuredMs} ms${c.openMeasuredFasterMs === null ? '' : `, an open CMSIS-NN engine measured ${c.openMeasuredFasterMs} ms there too`}`).join('; ')})` : ''}`,
    '',
  ].join('\n');
}
