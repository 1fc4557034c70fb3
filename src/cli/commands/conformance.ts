// `mcusim conformance FILE.jsonl... [--json]`: replays TFLM oracle kernel vectors (format in
// shared/oracle/README.md) through the sim conformance harness and compares bytes. Prints a per-op
// pass/fail table or {total, passed, failed:[{op,id,reason}]}; exit 1 on any failed case, 2 when
// a file cannot be read or a line is not a vector case. Counted progress ("case 1200/3150") on
// stderr once the replay passes a second; --quiet silences it.
import type { Command } from 'commander';
import { UsageError } from '../../ir/index.ts';
import type { ConformanceResult, VectorCase } from '../../sim/index.ts';
import { runVectorCase } from '../../sim/index.ts';
import { EXIT_CHECK_FAILED, EXIT_OK } from '../errors.ts';
import { renderTable, truncate } from '../format.ts';
import { addQuietOption } from '../cli-options.ts';
import { readInputFile } from '../load-model.ts';
import { countedProgress } from '../progress.ts';

export interface ConformanceFailure {
  readonly op: string;
  readonly id: number;
  readonly reason: string;
}

export interface ConformanceReport {
  readonly total: number;
  readonly passed: number;
  readonly failed: readonly ConformanceFailure[];
}

const MAX_LISTED_FAILURES = 20;

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

function isTensor(x: unknown): boolean {
  return isObject(x) && typeof x['dtype'] === 'string' && Array.isArray(x['shape']) && Array.isArray(x['data']);
}

function isVectorCase(c: unknown): c is VectorCase {
  return isObject(c) && typeof c['op'] === 'string' && typeof c['id'] === 'number' && isObject(c['options'])
    && Array.isArray(c['inputs']) && c['inputs'].every(isTensor) && Array.isArray(c['outputs']) && c['outputs'].every(isTensor);
}

/** One file's cases; a line that is not JSON or not a vector case is a UsageError naming file and line. */
function readCases(file: string): VectorCase[] {
  const text = Buffer.from(readInputFile(file, 'vector file')).toString('utf8');
  const cases: VectorCase[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let c: unknown;
    try {
      c = JSON.parse(line);
    } catch (e) {
      throw new UsageError(`${file}:${i + 1}: not JSON (${e instanceof Error ? e.message : String(e)})`);
    }
    if (!isVectorCase(c)) throw new UsageError(`${file}:${i + 1}: not an oracle vector case (needs op, id, options, inputs[] and outputs[] of {dtype, shape, data})`);
    cases.push(c);
  });
  if (cases.length === 0) throw new UsageError(`${file}: no vector cases`);
  return cases;
}

function reasonOf(r: ConformanceResult): string {
  if (r.reason !== undefined) return r.reason;
  const m = r.firstMismatch;
  if (m === undefined) return 'failed';
  return `output ${m.output} byte ${m.byteIndex}: expected ${m.expected}, got ${m.actual}`;
}

interface ConformanceCliOptions {
  readonly json?: boolean;
  readonly quiet?: boolean;
}

export function runConformance(files: readonly string[], opts: ConformanceCliOptions): number {
  const cases = files.flatMap(readCases);
  const progress = countedProgress('case', cases.length, { quiet: opts.quiet === true });
  const results = cases.map((c, i) => {
    const r = runVectorCase(c);
    progress.tick(i + 1);
    return r;
  });
  progress.finish();
  const failed = results.filter((r) => !r.pass).map((r) => ({ op: r.op, id: r.id, reason: reasonOf(r) }));
  const report: ConformanceReport = { total: results.length, passed: results.length - failed.length, failed };
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } else {
    const ops = [...new Set(results.map((r) => r.op))];
    const rows = ops.map((op) => {
      const mine = results.filter((r) => r.op === op);
      const bad = mine.filter((r) => !r.pass);
      return [op, mine.length, mine.length - bad.length, bad.length, bad.length === 0 ? 'pass' : 'FAIL'];
    });
    let text = `${renderTable(['op', 'cases', 'passed', 'failed', 'result'], rows)}\n`;
    if (failed.length > 0) {
      const listed = failed.slice(0, MAX_LISTED_FAILURES).map((f) => [f.op, f.id, truncate(f.reason, 100)]);
      text += `\n${renderTable(['op', 'id', 'reason'], listed)}\n`;
      if (failed.length > MAX_LISTED_FAILURES) text += `... and ${failed.length - MAX_LISTED_FAILURES} more (--json lists all)\n`;
    }
    text += `\n${report.passed}/${report.total} cases passed\n`;
    process.stdout.write(text);
  }
  return failed.length === 0 ? EXIT_OK : EXIT_CHECK_FAILED;
}

export function registerConformance(program: Command, setExit: (code: number) => void): void {
  const cmd = program
    .command('conformance')
    .description('replay TFLM oracle kernel vectors (JSONL) and compare outputs byte for byte')
    .argument('<files...>', 'one or more .jsonl vector files')
    .option('--json', 'print one JSON document');
  addQuietOption(cmd)
    .action((files: string[], opts: ConformanceCliOptions) => setExit(runConformance(files, opts)));
}
