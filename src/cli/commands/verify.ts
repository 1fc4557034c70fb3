// `mcusim verify ORIGINAL OPTIMIZED [--seeds N] [--storage KIND] [--compress] [--kernels L [--cpu C]] [--json] [--jobs N]` (DESIGN.md
// §4, §9): prints verifyModels' report (src/api/verify.ts: both models on N seeded inputs, the
// optimized one traced at its own plan): the first differing byte per output, every trace violation
// and every storage round-trip fault, with the kernels of --kernels / --cpu (both models run and the
// optimized one is traced with that library's specs). Exit 0 only if all match and both are clean.
import type { Command } from 'commander';
import type { Model } from '../../ir/index.ts';
import { UsageError, byteSize } from '../../ir/index.ts';
import type { VerifyReport } from '../../api/index.ts';
import { verifyPassed } from '../../api/index.ts';
import type { StorageKind } from '../../sim/index.ts';
import { DEFAULT_TFLM_ARCH, TFLM_ARCH_NAMES, getTflmArch, isStorageKind } from '../../sim/index.ts';
import { refuseFlag } from '../cli-options.ts';
import { isStorageOp } from '../../kernels/index.ts';
import { describeRuntime, renderTable } from '../format.ts';
import { countedProgress, isLargeModel, phaseProgress } from '../progress.ts';
import { loadModel } from '../load-model.ts';
import { parseJobs, startVerifyThreads } from '../verify-pool.ts';
import { addKernelOptions, resolveKernels } from '../kernel-options.ts';
import type { KernelCliOptions } from '../kernel-options.ts';

interface VerifyCliOptions extends KernelCliOptions {
  readonly seeds: string;
  readonly storage?: string;
  readonly compress?: boolean;
  readonly json?: boolean;
  readonly jobs?: string;
  readonly arch?: string;
  readonly quiet?: boolean;
}

function text(r: VerifyReport, original: Model): string {
  const outBytes = original.graph.outputs.map((t) => {
    const x = original.graph.tensors[t];
    return x ? byteSize(x.dtype, x.shape) : 0;
  });
  const lines = [
    `${r.cpu === null ? '' : `kernels: ${r.kernels} (${r.cpu}); `}seeds: ${r.seeds}; outputs: ${outBytes.length} (${outBytes.reduce((s, b) => s + b, 0)} B per run)`,
    `arena: original ${r.originalPeakBytes} B, optimized ${r.optimizedPeakBytes} B (planned)`,
    `whole arena on ${describeRuntime(r.arena.optimized.runtime, r.arena.arch, r.arena.optimized.kernels, r.arena.optimized.cpu)}: original ${r.arena.original.totalBytes} B, optimized ${r.arena.optimized.totalBytes} B (declare tensor_arena[${r.arena.optimized.declareBytes}])`,
    ...(r.plannedForMismatch ? [`warning: the optimized file was planned for ${r.plannedFor.kernels}${r.plannedFor.cpu === null ? '' : ` (${r.plannedFor.cpu})`} kernels, checked here with ${r.kernels}${r.cpu === null ? '' : ` (${r.cpu})`}: its overlaps are proven for the other library's access order`] : []),
    `outputs identical: ${r.identical ? 'yes' : 'NO'}`,
    `trace clean: ${r.traceClean ? 'yes' : 'NO'}`,
  ];
  if (r.storage !== null) {
    const st = r.storage;
    lines.push(`storage: ${st.device}${st.compressed ? ', MFV-compressed' : ''}; ${st.transfers} transfers, ${st.storedBytes} B stored; round trip ${st.violations.length === 0 ? 'clean (CRC, bytes, storage accesses)' : 'FAULTY'}`);
    for (const v of st.violations.slice(0, 20)) lines.push(`  storage: ${v}`);
  }
  if (r.planError !== null) lines.push(`static plan check failed: ${r.planError}`);
  if (r.mismatches.length > 0) {
    const rows = r.mismatches.map((m) => [m.seed, m.output, m.name, m.firstByte, m.expected, m.actual, m.differingBytes]);
    lines.push('', renderTable(['seed', 'output', 'name', 'first differing byte', 'expected', 'actual', 'bytes differing'], rows));
  }
  if (r.violations.length > 0) {
    const rows = r.violations.slice(0, 20).map((v) => [v.seed, v.kind, `${v.opIndex} ${v.opKind}`, v.access, v.address, v.occurrences, v.message]);
    lines.push('', renderTable(['seed', 'violation', 'op', 'access', 'address', 'count', 'detail'], rows));
    if (r.violations.length > 20) lines.push(`... ${r.violations.length - 20} more violations (--json lists all)`);
  }
  lines.push('', verifyPassed(r) ? 'VERIFIED' : 'FAILED');
  return lines.join('\n');
}

/** The most seeds one `verify` takes: each seed runs and traces both models, so far larger counts run for days. */
export const MAX_VERIFY_SEEDS = 100_000;

export async function runVerify(originalArg: string, optimizedArg: string, opts: VerifyCliOptions): Promise<number> {
  const seeds = Number(opts.seeds);
  if (!Number.isSafeInteger(seeds) || seeds < 1) throw new UsageError(`--seeds must be a positive integer, got '${opts.seeds}'`);
  if (seeds > MAX_VERIFY_SEEDS) throw new UsageError(`--seeds must be at most ${MAX_VERIFY_SEEDS} (each seed runs both models), got '${opts.seeds}'`);
  if (opts.storage !== undefined && !isStorageKind(opts.storage)) throw new UsageError(`--storage must be internal, external or remote, got '${opts.storage}'`);
  const jobs = parseJobs(opts.jobs);
  const arch = getTflmArch(opts.arch ?? DEFAULT_TFLM_ARCH).name;
  if (opts.compress === true && opts.storage === undefined) refuseFlag('--compress', 'it compresses blocks spilled to a storage device; name the device with --storage');
  // Worker threads start loading their code now, while this thread loads the models.
  const threads = startVerifyThreads(jobs, seeds);
  let report: VerifyReport;
  let original: Model;
  try {
    original = loadModel(originalArg);
    const optimized = loadModel(optimizedArg);
    // The optimized file's own library unless --kernels names one (then verify reports the mismatch).
    const registry = resolveKernels(opts, optimized);
    const storage = { arch, kernels: registry.library, ...(registry.cpu === null ? {} : { cpu: registry.cpu }), ...(opts.storage !== undefined ? { storage: opts.storage as StorageKind } : {}), ...(opts.compress ? { compress: true } : {}) };
    if (opts.storage !== undefined && !optimized.graph.ops.some(isStorageOp)) {
      refuseFlag('--storage', `'${optimizedArg}' spills no tensor to storage (no spill/fetch ops; tinyseg adds them)`);
    }
    const parallel = Math.min(jobs, seeds);
    // A real model's first seed takes seconds before the counted lines can say anything.
    phaseProgress('verify', { show: isLargeModel(optimized.graph), quiet: opts.quiet === true })
      .phase(`running both models on ${seeds} seed${seeds === 1 ? '' : 's'} (the optimized one traced) on ${parallel} thread${parallel === 1 ? '' : 's'}`);
    const progress = countedProgress('seed', seeds, { quiet: opts.quiet === true, parallel });
    report = await threads.run(original, optimized, storage, progress.tick);
    progress.finish();
  } finally {
    await threads.close();
  }
  process.stdout.write(opts.json ? `${JSON.stringify(report)}\n` : `${text(report, original)}\n`);
  return verifyPassed(report) ? 0 : 1;
}

export function registerVerify(program: Command, setExit: (code: number) => void): void {
  const cmd = program
    .command('verify')
    .description('run ORIGINAL and OPTIMIZED on seeded inputs, compare every output byte, trace the optimized run')
    .argument('<original>', 'a .tflite file or zoo:<name>')
    .argument('<optimized>', 'a .tflite file or zoo:<name>')
    .option('--seeds <n>', `number of seeded random inputs (seeds 1..N, at most ${MAX_VERIFY_SEEDS})`, '3')
    .option('--storage <kind>', 'device for spilled tensors: internal, external or remote (default internal flash)')
    .option('--compress', 'MFV-compress spilled blocks (TinySeg §5.1)')
    .option('--arch <arch>', `TFLM build of the whole-arena figures (${TFLM_ARCH_NAMES.join(', ')}; default ${DEFAULT_TFLM_ARCH})`)
    .option('--json', 'print one JSON document')
    .option('--jobs <n>', 'threads running seeds in parallel (default: the number of cores); the report is the same for any N')
    .option('-q, --quiet', 'no progress lines or time estimate on stderr');
  addKernelOptions(cmd)
    .action(async (original: string, optimized: string, opts: VerifyCliOptions) => setExit(await runVerify(original, optimized, opts)));
}
