// Where the tests' data lives. The project's own data (kernel vectors, the op-models made with
// TensorFlow's converter, arena figures) is in testdata/; everything that came from another
// repository (TFLM's example models, the real public models, the real builds' recordings) is read
// where it is: the folder MCUSIM_DATA names, default ../shared/oracle. A suite whose data is absent
// is skipped, named "[no data: FOLDER]" so that the summary reporter counts and names it.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');

/** The project's own test data (testdata/README.md lists what is there and who made it). */
export const TESTDATA = resolve(repoRoot, 'testdata');

/** The oracle folder: MCUSIM_DATA, default ../shared/oracle beside the checkout. */
export const ORACLE = process.env['MCUSIM_DATA'] ?? resolve(repoRoot, '..', 'shared', 'oracle');

/** Own data, read from the oracle folder when it holds the same part (held-back data), else testdata/. */
function own(part: string): string {
  const there = join(ORACLE, part);
  return existsSync(there) ? there : join(TESTDATA, part);
}

export const ORACLE_VECTORS = own('vectors');
export const OP_MODELS = own('op-models');
export const ARENA_CORTEX_M7 = own('arena-cortex-m7.json');
/** TFLM's example models with their goldens (fetched: read from the oracle folder). */
export const ORACLE_MODELS = join(ORACLE, 'models');

/** The marker a skipped suite's name carries; test/summary-reporter.ts counts tests under it. */
export const NO_DATA = '[no data: ';

/** The oracle path of `part` when it exists, else undefined. */
export function oraclePath(part: string): string | undefined {
  const p = join(ORACLE, part);
  return existsSync(p) ? p : undefined;
}

/** Whether every part (relative to the oracle folder) exists. */
export function hasOracle(...parts: readonly string[]): boolean {
  return parts.every((p) => existsSync(join(ORACLE, p)));
}

/** The first missing part's folder, for the skip marker. */
function missingOf(parts: readonly string[]): string | undefined {
  const p = parts.find((x) => !existsSync(join(ORACLE, x)));
  return p === undefined ? undefined : join(ORACLE, p);
}

/**
 * describe(name, fn), or, when a part of the oracle folder it reads is missing, a skipped suite
 * named after the folder it looked in (`name [no data: FOLDER]`).
 */
export function describeWithData(parts: string | readonly string[], name: string, fn: () => void): void {
  const missing = missingOf(typeof parts === 'string' ? [parts] : parts);
  if (missing === undefined) describe(name, fn);
  else describe.skip(`${name} ${NO_DATA}${missing}]`, fn);
}

/** it(name, fn, timeout), or a skipped test named after the missing folder (as describeWithData). */
export function itWithData(parts: string | readonly string[], name: string, fn: () => unknown, timeoutMs?: number): void {
  const missing = missingOf(typeof parts === 'string' ? [parts] : parts);
  if (missing === undefined) it(name, fn, timeoutMs);
  else it.skip(`${name} ${NO_DATA}${missing}]`, fn);
}
