// `mcusim latency MODEL [--target NAME] [--kernels reference|cmsis-nn] [--storage internal|external|remote]
// [--async-erase] [--compress] [--seed N] [--json] [--svg FILE]`: one inference's latency on a board
// (DESIGN.md §9; TinySeg Table 5 / Figure 13 breakdown). With --compress the spilled tensors' bytes come
// from a real run with all-zero inputs (TinySeg's benchmark sketch), or seeded random ones with --seed.
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { UsageError, byteSize } from '../../ir/index.ts';
import { preparePlannedModel, runPlanned } from '../../optimizer/index.ts';
import type { KernelLibrary, LatencyReport } from '../../sim/index.ts';
import { DEFAULT_TARGET_NAME, STORAGE_KINDS, estimateLatency, getTarget, isStorageKind, listTargets, renderTimelineSvg, storageTransfers } from '../../sim/index.ts';
import { renderTable } from '../format.ts';
import { loadModel } from '../load-model.ts';

interface LatencyCliOptions {
  readonly target: string;
  readonly kernels: string;
  readonly storage: string;
  readonly asyncErase?: boolean;
  readonly compress?: boolean;
  readonly seed?: string;
  readonly json?: boolean;
  readonly svg?: string;
}

const LIBRARIES: readonly KernelLibrary[] = ['reference', 'cmsis-nn'];

function parseLibrary(name: string): KernelLibrary {
  const lib = LIBRARIES.find((l) => l === name);
  if (lib === undefined) throw new UsageError(`unknown --kernels '${name}'; known: ${LIBRARIES.join(', ')}`);
  return lib;
}

function parseSeed(text: string | undefined): number | null {
  if (text === undefined) return null;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0) throw new UsageError(`--seed must be a non-negative integer, got '${text}'`);
  return n;
}

function textReport(r: LatencyReport): string {
  const rows = r.ops.map((o) => [o.index, o.kind, o.macs, o.computeMs.toFixed(3), o.spillMs.toFixed(3), o.fetchMs.toFixed(3), o.codecMs.toFixed(3), o.stallMs.toFixed(3), o.totalMs.toFixed(3)]);
  const b = r.breakdown;
  const cal = r.calibration === null ? 'uncalibrated' : `compute scale ${r.calibration.scale.toFixed(4)} (${r.calibration.source})`;
  const slots = r.slots.map((s) => `slot ${s.slot}: tensor ${s.tensor}, ${s.rawBytes} B -> ${s.storedBytes} B stored (${s.compression})`);
  return [
    renderTable(['op', 'kind', 'MACs', 'compute ms', 'spill ms', 'fetch ms', 'codec ms', 'stall ms', 'total ms'], rows),
    '',
    ...slots,
    `target ${r.target}, kernels ${r.library}, storage ${r.storage}${r.asyncErase ? ', async erase' : ''}${r.compress ? ', compressed' : ''}; ${cal}`,
    `total ${r.totalMs.toFixed(1)} ms = compute ${b.computeMs.toFixed(1)} + spill ${b.spillMs.toFixed(1)} + fetch ${b.fetchMs.toFixed(1)} + codec ${b.codecMs.toFixed(1)} + stall ${b.stallMs.toFixed(1)}; second core busy ${r.secondCoreBusyMs.toFixed(1)} ms`,
    '',
  ].join('\n');
}

export function runLatency(modelArg: string, opts: LatencyCliOptions): number {
  const target = getTarget(opts.target);
  const library = parseLibrary(opts.kernels);
  if (!isStorageKind(opts.storage)) throw new UsageError(`unknown --storage '${opts.storage}'; known: ${STORAGE_KINDS.join(', ')}`);
  const seed = parseSeed(opts.seed);
  const model = loadModel(modelArg);
  const { graph } = model;
  const spills = storageTransfers(graph).flat().filter((t) => t.direction === 'spill');
  let payloadOf: ((tensor: number) => Uint8Array | null) | undefined;
  if (opts.compress && spills.length > 0) {
    const pm = preparePlannedModel(model);
    const inputs = seed === null ? pm.graph.inputs.map((t) => { const x = pm.graph.tensors[t]; return new Uint8Array(x ? byteSize(x.dtype, x.shape) : 0); }) : undefined;
    const run = runPlanned(pm, { ...(inputs ? { inputs } : { seed: seed ?? 1 }), captureTensors: true });
    payloadOf = (t) => run.tensors?.[t] ?? null;
  }
  const report = estimateLatency(graph, {
    target, library, storage: opts.storage, asyncErase: opts.asyncErase === true, compress: opts.compress === true,
    ...(payloadOf ? { payloadOf } : {}),
  });
  if (opts.svg !== undefined) {
    try {
      writeFileSync(opts.svg, renderTimelineSvg(report));
    } catch (e) {
      throw new UsageError(`cannot write '${opts.svg}': ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  if (opts.json) {
    const { timeline: _timeline, ...rest } = report;
    process.stdout.write(`${JSON.stringify(rest)}\n`);
  } else {
    process.stdout.write(textReport(report));
  }
  return 0;
}

export function registerLatency(program: Command, setExit: (code: number) => void): void {
  program
    .command('latency')
    .description('estimate one inference\'s latency on a board: compute, spill, fetch, codec, stall (TinySeg Table 5)')
    .argument('<model>', 'a .tflite file or zoo:<name>')
    .option('--target <name>', `board profile (${listTargets().join(', ')})`, DEFAULT_TARGET_NAME)
    .option('--kernels <lib>', `kernel library (${LIBRARIES.join(', ')})`, 'reference')
    .option('--storage <kind>', `spill storage (${STORAGE_KINDS.join(', ')})`, 'internal')
    .option('--async-erase', 'erase flash on the second core ahead of the next spill (TinySeg §5.2)')
    .option('--compress', 'most-frequent-value compression of spilled tensors (TinySeg §5.1)')
    .option('--seed <n>', 'seeded random inputs for the compression run (default: all-zero inputs)')
    .option('--json', 'print one JSON document')
    .option('--svg <file>', 'write the two-core timeline as SVG')
    .action((model: string, opts: LatencyCliOptions) => setExit(runLatency(model, opts)));
}
