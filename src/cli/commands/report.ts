// `mcusim report MODEL [--passes LIST] [--board NAME] [--seeds N] [--jobs N] -o FILE.html`: one
// self-contained HTML page about a model and what the passes do to it (src/report builds it):
// summary, plans before and after, O_s per op, passes, latency and timeline, spill sweep (tinyseg),
// and the verification of the optimized model on N seeds (default 2). --jobs: the verification's
// runs and the passes' and sweep's candidates on N threads, as in verify, optimize and sweep (the
// page is the same for any N). --kernels / --cpu: the library the passes plan for and the arena, O_s,
// latency and verification are for (worker threads rebuild it by name); the page also puts both
// libraries side by side (arena, DMO saving, O_s that differ).
// Progress on stderr.
import type { Command } from 'commander';
import { UsageError } from '../../ir/index.ts';
import { getPass, passNames } from '../../optimizer/index.ts';
import type { ReportVerification } from '../../report/index.ts';
import { collectReport, renderReportHtml } from '../../report/index.ts';
import { DEFAULT_TARGET_NAME, getTarget } from '../../sim/index.ts';
import { checkOutputFile, progressLog } from '../cli-options.ts';
import { loadRunnableModel } from '../load-model.ts';
import { writeOutputFile } from '../output-file.ts';
import { reportVerification } from '../../api/index.ts';
import { startVerifyThreads } from '../verify-pool.ts';
import { openEvaluatorPool, parseJobs } from '../worker-pool.ts';
import { addKernelOptions, kernelsForFile } from '../kernel-options.ts';
import type { KernelCliOptions } from '../kernel-options.ts';

interface ReportCliOptions extends KernelCliOptions {
  readonly output?: string;
  readonly passes: string;
  readonly board: string;
  readonly seeds: string;
  readonly jobs?: string;
  readonly quiet?: boolean;
}

function parseSeeds(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0 || n > 100) throw new UsageError(`--seeds must be an integer from 0 to 100, got '${text}'`);
  return n;
}

export async function runReport(modelArg: string, opts: ReportCliOptions): Promise<number> {
  if (opts.output === undefined) throw new UsageError('report needs -o FILE.html');
  const passes = opts.passes.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  if (passes.length === 0) throw new UsageError(`--passes needs at least one pass; available: ${passNames().join(', ')}`);
  passes.forEach(getPass);
  const target = getTarget(opts.board);
  const seeds = parseSeeds(opts.seeds);
  const jobs = parseJobs(opts.jobs);
  // Before minutes of work start.
  checkOutputFile(opts.output, '-o/--output');
  const log = progressLog(opts);
  const model = loadRunnableModel(modelArg);
  const registry = kernelsForFile(opts, model, modelArg);
  // The verification's worker threads load their code while this thread runs the passes.
  const threads = seeds > 0 ? startVerifyThreads(jobs, seeds) : null;
  let data: ReturnType<typeof collectReport>;
  let verification: ReportVerification | null = null;
  try {
    const pool = openEvaluatorPool(jobs);
    try {
      data = collectReport(model, { modelLabel: modelArg, passes, target, log, evaluator: pool.evaluator, registry });
    } finally {
      void pool.close();
    }
    if (threads !== null) {
      const parallel = Math.min(jobs, seeds);
      log(`report: verifying the optimized model on ${seeds} seed${seeds === 1 ? '' : 's'} (${parallel} thread${parallel === 1 ? '' : 's'})`);
      verification = reportVerification(await threads.run(data.original, data.optimized, { kernels: registry.library, ...(registry.cpu === null ? {} : { cpu: registry.cpu }) }));
    }
  } finally {
    await threads?.close();
  }
  writeOutputFile(opts.output, renderReportHtml(data, verification));
  log(`report: wrote ${opts.output}`);
  return 0;
}

export function registerReport(program: Command, setExit: (code: number) => void): void {
  const cmd = program
    .command('report')
    .description('one self-contained HTML page: summary, plans before/after, O_s, passes, latency, sweep, verification')
    .argument('<model>', 'a .tflite file or zoo:<name>')
    .option('-o, --output <file>', 'the HTML file to write')
    .option('--passes <list>', `comma-separated passes (${passNames().join(', ')})`, 'dmo')
    .option('--board <name>', 'board for latency (and fit, when known)', DEFAULT_TARGET_NAME)
    .option('--seeds <n>', 'seeded random inputs the verification runs (0 = skip)', '2')
    .option('--jobs <n>', 'threads for the verification\'s runs and the passes\' candidates (default: the number of cores); the page is the same for any N')
    .option('-q, --quiet', 'no progress lines on stderr');
  addKernelOptions(cmd)
    .action(async (model: string, opts: ReportCliOptions) => setExit(await runReport(model, opts)));
}
