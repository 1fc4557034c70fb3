// CLI startup, side by side with Node itself: wall time of `node bin/mcusim.mjs --version`,
// `--help` and `run zoo:mobilenet-v1-0.25-128 --seed 1 --out DIR` (person_detect's architecture; the compiled CLI, rebuilt first so dist/ is
// current) against `node -e 0`, as medians of alternating runs (issue 14: --version within 3x).
// Run alone (`node --import tsx bench/startup.ts`) or from `npm run bench`. Ratios, not asserts.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'mcusim.mjs');
export const TARGET_VERSION_RATIO = 3;

export interface StartupRow {
  readonly name: string;
  readonly command: string;
  readonly medianMs: number;
  readonly nodeMedianMs: number;
  readonly ratio: number;
}

export interface StartupResult {
  readonly runs: number;
  readonly rows: readonly StartupRow[];
  readonly versionRatio: number;
  readonly targetMet: boolean;
}

function wallMs(args: readonly string[]): number {
  const t0 = process.hrtime.bigint();
  execFileSync(process.execPath, args, { stdio: 'ignore' });
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? (s[s.length >> 1] as number) : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2;
};

/** One warm-up pair, then `runs` alternating pairs (command, node -e 0). */
function measure(name: string, args: readonly string[], runs: number): StartupRow {
  wallMs(args);
  wallMs(['-e', '0']);
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < runs; i++) {
    a.push(wallMs(args));
    b.push(wallMs(['-e', '0']));
  }
  const medianMs = median(a);
  const nodeMedianMs = median(b);
  return { name, command: `node ${args.map((x) => (x.startsWith(tmpdir()) ? 'DIR' : x.replace(ROOT, '.'))).join(' ')}`, medianMs, nodeMedianMs, ratio: medianMs / nodeMedianMs };
}

export function benchStartup(runs = 5): StartupResult {
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build failed');
  const rows = [measure('--version', [BIN, '--version'], runs), measure('--help', [BIN, '--help'], runs)];
  const out = mkdtempSync(join(tmpdir(), 'mcusim-bench-'));
  try {
    rows.push(measure('run zoo:mobilenet-v1-0.25-128', [BIN, 'run', 'zoo:mobilenet-v1-0.25-128', '--seed', '1', '--out', out], runs));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  const versionRatio = rows[0]?.ratio ?? NaN;
  return { runs, rows, versionRatio, targetMet: versionRatio <= TARGET_VERSION_RATIO };
}

export function startupMarkdown(r: StartupResult): string {
  return [
    `## CLI startup (compiled bin vs \`node -e 0\`, medians of ${r.runs} alternating runs; target --version <= ${TARGET_VERSION_RATIO}x)`,
    '',
    '| command | median ms | node -e 0 ms | ratio |',
    '| --- | ---: | ---: | ---: |',
    ...r.rows.map((x) => `| \`${x.command}\` | ${x.medianMs.toFixed(1)} | ${x.nodeMedianMs.toFixed(1)} | ${x.ratio.toFixed(2)}x |`),
    '',
    `--version ratio ${r.versionRatio.toFixed(2)}x (target <= ${TARGET_VERSION_RATIO}x: ${r.targetMet ? 'met' : 'NOT met'}).`,
    '',
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(startupMarkdown(benchStartup()));
