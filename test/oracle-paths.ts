// Where the tests' data lives. The project's own data (kernel vectors, the op-models made with
// TensorFlow's converter, arena figures) is in testdata/; everything that came from another
// repository (TFLM's example models, the real public models, the real builds' recordings) is read
// where it is: the folder MCUSIM_DATA names, default ../shared/oracle. A suite whose data is absent
// is skipped, named "[no data: FOLDER]" so that the summary reporter counts and names it.
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import { getCurrentSuite } from 'vitest/suite';

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

/** The parts of the oracle's layout that are the project's own data (read by `own`). */
const OWN_PARTS = ['vectors', 'op-models', 'arena-cortex-m7.json'];

export const ORACLE_VECTORS = own('vectors');
export const OP_MODELS = own('op-models');
export const ARENA_CORTEX_M7 = own('arena-cortex-m7.json');
/** TFLM's example models with their goldens (fetched: read from the oracle folder). */
export const ORACLE_MODELS = join(ORACLE, 'models');

/**
 * A path written in the oracle's layout ('models-real/x.tflite', 'op-models/SVDF_1'): own data
 * from where it is kept, everything else from the oracle folder.
 */
export function dataPath(rel: string): string {
  const [part = '', ...rest] = rel.split('/');
  return OWN_PARTS.includes(part) ? join(own(part), ...rest) : join(ORACLE, rel);
}

/** The parts of the oracle folder that paths in its layout need (own data needs none), for describeWithData. */
export function fetchedParts(...rels: readonly string[]): string[] {
  const parts = rels.map((r) => r.split('/')[0] ?? '').filter((p) => !OWN_PARTS.includes(p));
  return [...new Set(parts)];
}

/** The .tflite files of `dir` by name (extension dropped), sorted; none when the folder is absent. */
export function tfliteNames(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((f) => f.endsWith('.tflite')).map((f) => f.slice(0, -'.tflite'.length)).sort();
}

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

const partsOf = (parts: string | readonly string[]): readonly string[] => (typeof parts === 'string' ? [parts] : parts);

/**
 * describe(name, fn), or, when a part of the oracle folder it reads is missing, a skipped suite
 * named after the folder it looked in (`name [no data: FOLDER]`). Its body still runs to collect
 * the tests, so it must not read the data; a body whose cases are listed from the missing folder
 * registers none, and then one placeholder test stands for them, so that the skip is counted.
 */
export function describeWithData(parts: string | readonly string[], name: string, fn: () => void): void {
  const missing = missingOf(partsOf(parts));
  if (missing === undefined) {
    describe(name, fn);
    return;
  }
  describe.skip(`${name} ${NO_DATA}${missing}]`, () => {
    fn();
    if (getCurrentSuite().tasks.length === 0) it('every case listed from the folder', () => {});
  });
}

/** it(name, fn), or, when a part of the oracle folder it reads is missing, a skipped test named `name [no data: FOLDER]`. */
export function itWithData(parts: string | readonly string[], name: string, fn: () => unknown, timeoutMs?: number): void {
  const missing = missingOf(partsOf(parts));
  if (missing === undefined) it(name, fn, timeoutMs);
  else it.skip(`${name} ${NO_DATA}${missing}]`, fn, timeoutMs);
}

