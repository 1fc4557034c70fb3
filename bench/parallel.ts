// `node --import tsx bench/parallel.ts [--quick]` (and part of `npm run bench`): the tiling search,
// `auto` and the TinySeg spill sweep as users run them, `mcusim ... --jobs 1` against `--jobs N`
// (N = available cores) in fresh processes on the compiled dist/, alternated RUNS times, medians
// compared as a ratio; stdout and the written model compared byte for byte (they must be
// identical). Fresh processes, because the pool's cost is cold code: a worker compiles and warms
// up on its own, and timing a pooled search after a serial one in the same process (as this bench
// once did) credited the pool with the serial run's warm-up (1.67x for person_detect's tiling
// against 1.0-1.1x from the command line). MobileNet v1 0.25 stands for person_detect (same
// architecture, 128x128x3): a zoo model, so the bench runs in a bare clone. Small models are here too: the pool must cost them
// nothing (it starts workers only once a search proves long, worker-pool.ts). Run after a build.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ParallelRow {
  readonly name: string;
  readonly jobs: number;
  readonly serialMs: number;
  readonly pooledMs: number;
  readonly speedup: number;
  readonly identical: boolean;
}

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'mcusim.mjs');
const RUNS = 5;

interface Case {
  readonly name: string;
  readonly quick: boolean;
  /** CLI arguments; OUT stands for the output model's path. */
  readonly args: readonly string[];
}

export const PARALLEL_CASES: readonly Case[] = [
  { name: 'optimize zoo:mobilenet-v1-0.25-128 --passes tiling', quick: false, args: ['optimize', 'zoo:mobilenet-v1-0.25-128', '--passes', 'tiling', '-o', 'OUT', '--json'] },
  { name: 'optimize zoo:mobilenet-v1-0.25-128 --passes auto', quick: false, args: ['optimize', 'zoo:mobilenet-v1-0.25-128', '--passes', 'auto', '-o', 'OUT', '--json'] },
  { name: 'optimize zoo:mobilenet-v2-0.35-224 --passes tiling', quick: false, args: ['optimize', 'zoo:mobilenet-v2-0.35-224', '--passes', 'tiling', '-o', 'OUT', '--json'] },
  { name: 'optimize zoo:cifar10-cnn --passes tiling', quick: true, args: ['optimize', 'zoo:cifar10-cnn', '--passes', 'tiling', '-o', 'OUT', '--json'] },
  { name: 'sweep zoo:tiny-unet', quick: true, args: ['sweep', 'zoo:tiny-unet', '--json'] },
];

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)] ?? NaN;
};

/** One CLI run: wall ms and what it printed and wrote. */
function runCli(args: readonly string[], out: string, jobs: number): { ms: number; result: string } {
  const argv = [BIN, ...args.map((a) => (a === 'OUT' ? out : a)), '--jobs', String(jobs), '--quiet'];
  const t0 = process.hrtime.bigint();
  const stdout = execFileSync(process.execPath, argv, { encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const written = args.includes('OUT') ? readFileSync(out).toString('base64') : '';
  return { ms, result: `${stdout}\n${written}` };
}

/** `--jobs 1` and `--jobs N` alternated RUNS times per case; medians. */
export function benchParallel(quick: boolean, jobs = availableParallelism()): ParallelRow[] {
  const dir = mkdtempSync(join(tmpdir(), 'mcusim-bench-parallel-'));
  try {
    return PARALLEL_CASES.filter((x) => !quick || x.quick).map((c) => {
      process.stderr.write(`parallel ${c.name} --jobs 1 / ${jobs} ...\n`);
      const serial: number[] = [];
      const pooled: number[] = [];
      const results = new Set<string>();
      for (let i = 0; i < RUNS; i++) {
        const one = runCli(c.args, join(dir, 'one.tflite'), 1);
        const n = runCli(c.args, join(dir, 'n.tflite'), jobs);
        serial.push(one.ms);
        pooled.push(n.ms);
        results.add(one.result).add(n.result);
      }
      const serialMs = median(serial);
      const pooledMs = median(pooled);
      return { name: c.name, jobs, serialMs, pooledMs, speedup: serialMs / pooledMs, identical: results.size === 1 };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function parallelMarkdown(rows: readonly ParallelRow[]): string {
  return [
    `## Parallel candidate evaluation (\`--jobs 1\` vs \`--jobs N\`, fresh processes, median of ${RUNS}; issue 15)`,
    '',
    '| command | jobs | --jobs 1 ms | --jobs N ms | speedup | identical |',
    '| --- | ---: | ---: | ---: | ---: | --- |',
    ...rows.map((r) => `| ${r.name} | ${r.jobs} | ${r.serialMs.toFixed(0)} | ${r.pooledMs.toFixed(0)} | ${r.speedup.toFixed(2)}x | ${r.identical ? 'yes' : 'NO'} |`),
    '',
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const jobs = Number(process.env.BENCH_JOBS ?? availableParallelism());
  process.stdout.write(`load average at start: ${loadavg().map((x) => x.toFixed(1)).join(' ')}\n\n`);
  process.stdout.write(parallelMarkdown(benchParallel(process.argv.includes('--quick'), jobs)));
}
