// `mcusim latency MODEL --boards all|A,B` (one line per board) and `mcusim latency --validate
// [--csv FILE]` (every cell of an MLPerf Tiny latency CSV predicted, with error, summary and
// leave-one-board-out; optimizer/latency-validation.ts). The CSV defaults to the published cells the
// package ships (sim/latency/mlperf-tiny-data.ts); the models are the zoo's MLPerf Tiny reference
// architectures (zoo:mlperf-kws, -vww, -ic, -ad), op for op the public files: it runs anywhere. The
// recorded instruction sets (instructions-m7/, instructions-m55/) are looked for beside a given CSV,
// then in $MCUSIM_DATA, then ../shared/oracle; without them that part says there is none.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Model } from '../ir/index.ts';
import { UsageError } from '../ir/index.ts';
import type { CellResult, Validation } from '../optimizer/index.ts';
import { mlperfZooModels, parseLatencyCsv, validateLatency } from '../optimizer/index.ts';
import type { Engine, KernelLibrary, LatencyReport } from '../sim/index.ts';
import { MLPERF_TINY_OPEN_CSV, MLPERF_TINY_PROPRIETARY_CSV, estimateLatency, heaviestOp, getTarget, listTargets } from '../sim/index.ts';
import { renderTable } from './format.ts';
import { readInputFile } from './load-model.ts';
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
    return { board: name, core: target.core.family, clockMhz: target.mainCore.clockHz / 1e6, totalMs: r.totalMs, heaviestOp: heaviestOp(r) };
  });
}

export function boardsText(modelArg: string, lines: readonly BoardLine[], library: KernelLibrary, engine: Engine): string {
  const rows = lines.map((l) => [l.board, l.core, l.clockMhz, l.totalMs.toFixed(2), l.heaviestOp === null ? '-' : `${l.heaviestOp.index} ${l.heaviestOp.kind} ${(l.heaviestOp.share * 100).toFixed(1)}%`]);
  return `${renderTable(['board', 'core', 'MHz', 'total ms', 'heaviest op (share)'], rows)}\n${modelArg}: kernels ${library}, engine ${engine}\n`;
}

/** The name the table's summary gives the cells' source. */
export const PACKAGED_CSV = 'MLPerf Tiny v0.5-v1.2 published cells (shipped with mcusim)';

/** The data folder holding instructions-m7/ and instructions-m55/: a given CSV's (one folder up),
 * else $MCUSIM_DATA, else ../shared/oracle from the working directory; null when none has them. */
function instructionDataRoot(csv: string | undefined): string | null {
  const candidates = [csv === undefined ? '' : join(dirname(resolve(csv)), '..'), process.env['MCUSIM_DATA'] ?? '', resolve('..', 'shared', 'oracle')].filter((d) => d !== '');
  return candidates.find((d) => existsSync(join(d, 'instructions-m7')) || existsSync(join(d, 'instructions-m55'))) ?? null;
}

export function runValidation(csvOption: string | undefined): { csv: string; validation: Validation; instructions: InstructionSet[] } {
  const text = csvOption === undefined ? MLPERF_TINY_OPEN_CSV : new TextDecoder().decode(readInputFile(csvOption, 'latency CSV'));
  // The proprietary lower bounds: the packaged ones, or a mlperf-tiny-proprietary.csv beside a given CSV.
  const proprietaryCsv = csvOption === undefined ? null : join(dirname(resolve(csvOption)), 'mlperf-tiny-proprietary.csv');
  const proprietaryText = proprietaryCsv === null ? MLPERF_TINY_PROPRIETARY_CSV : existsSync(proprietaryCsv) ? readFileSync(proprietaryCsv, 'utf8') : null;
  const proprietary = proprietaryText === null ? [] : parseLatencyCsv(proprietaryText);
  const validation = validateLatency(parseLatencyCsv(text), mlperfZooModels(), proprietary);
  const root = instructionDataRoot(csvOption);
  return { csv: csvOption ?? PACKAGED_CSV, validation, instructions: root === null ? [] : validateInstructionSets(root) };
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
    s.helium === null ? 'no Helium cells (reported apart: no constant is fitted on a Helium core)' :
      `Helium cells, reported apart (TRM timings alone, nothing fitted on them): ${s.helium.cells} cells, mean abs error ${(s.helium.mae * 100).toFixed(1)}%, worst ${(s.helium.worst * 100).toFixed(1)}%`,
    `constants this CSV fits: ${refit === '' ? 'none (no family with two boards)' : refit}`,
    v.lowerBounds.length === 0 ? 'no proprietary-engine rows (none packaged, or no mlperf-tiny-proprietary.csv beside the given CSV)' :
      `proprietary engines on the same board and benchmark: ${v.lowerBounds.filter((c) => c.ok).length}/${v.lowerBounds.length} TFLM + CMSIS-NN estimates slower than them${v.lowerBounds.some((c) => !c.ok) ? ` (FASTER: ${v.lowerBounds.filter((c) => !c.ok).map((c) => `${c.board} ${c.bench} ${c.round} ${c.engineName} ${c.estimateMs.toFixed(1)} < ${c.measuredMs} ms${c.openMeasuredFasterMs === null ? '' : `, an open CMSIS-NN engine measured ${c.openMeasuredFasterMs} ms there too`}`).join('; ')})` : ''}`,
    '',
  ].join('\n');
}
