// A board profile from a built-in one plus a user's own numbers (`mcusim latency --target-file`):
// measured values (a USB receive cost, a flash program time, a clock) replace the base profile's.
// Overrides follow the profile's shape; every problem (unknown key, wrong type, a number that is
// negative, not finite, zero where it divides, fractional where it counts) is reported at once with
// its path, and the merged profile must still build every storage device.

import { McusimError, UsageError } from '../ir/index.ts';
import { STORAGE_KINDS, createStorage } from './storage/index.ts';
import type { KernelLibrary, TargetProfile } from './targets/index.ts';
import { KERNEL_LIBRARIES } from './targets/index.ts';

/** Leaf keys that divide or size something: zero would be meaningless. */
const POSITIVE_KEYS: ReadonlySet<string> = new Set([
  'clockHz', 'busClockHz', 'linkBytesPerSecond', 'scale', 'sramBytes', 'accessBytes', 'busClockDivider', 'busBytes',
  'banks', 'sectorsPerBank', 'sectorBytes', 'programUnitBytes', 'sizeBytes', 'pageBytes', 'readAccessBytes',
  'readDataLines', 'programDataLines', 'packetBytes',
]);

/** Leaf keys that count whole things (bytes, lines, banks, wait states, clocks). */
const INTEGER_KEYS: ReadonlySet<string> = new Set([
  'sramBytes', 'banks', 'sectorsPerBank', 'sectorBytes', 'programUnitBytes', 'sizeBytes', 'pageBytes',
  'readAccessBytes', 'readDataLines', 'programDataLines', 'packetBytes', 'readWaitStates',
  'readCommandClocks', 'writeCommandClocks', 'waitStates', 'accessBytes', 'dataCacheBytes', 'busBytes',
]);

/** Optional keys a profile may leave out (a value of the same type as the one shown), by object path. */
const OPTIONAL_KEYS: Readonly<Record<string, Readonly<Record<string, Json>>>> = {
  flashTiming: { busClockDivider: 1, busBytes: 8 },
};

/** The simulator holds a device's bytes: larger storage sizes are refused rather than failing mid-run. */
export const MAX_STORAGE_BYTES = 1 << 30;

type Json = unknown;

function isRecord(x: Json): x is Record<string, Json> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function checkNumber(path: string, key: string, v: Json, problems: string[]): void {
  if (typeof v !== 'number' || !Number.isFinite(v)) problems.push(`${path}: must be a finite number`);
  else if (v < 0 || (v === 0 && POSITIVE_KEYS.has(key))) problems.push(`${path}: must be ${POSITIVE_KEYS.has(key) ? '> 0' : '>= 0'}, got ${v}`);
  else if (INTEGER_KEYS.has(key) && !Number.isInteger(v)) problems.push(`${path}: must be a whole number, got ${v}`);
  else if (key === 'sizeBytes' && v > MAX_STORAGE_BYTES) problems.push(`${path}: at most ${MAX_STORAGE_BYTES} bytes (the simulator holds the device's bytes), got ${v}`);
}

/** `base` with the values of `over` merged in, following base's shape; problems collected. */
function mergeLike(base: Json, over: Json, path: string, key: string, problems: string[]): Json {
  if (typeof base === 'number') {
    checkNumber(path, key, over, problems);
    return over;
  }
  if (typeof base === 'string') {
    if (typeof over !== 'string') problems.push(`${path}: must be a string`);
    return over;
  }
  if (typeof base === 'boolean') {
    if (typeof over !== 'boolean') problems.push(`${path}: must be true or false`);
    return over;
  }
  if (Array.isArray(base)) {
    // Arrays (the QSPI part's larger erase types) are replaced whole, element shape as the base's first.
    if (!Array.isArray(over)) {
      problems.push(`${path}: must be an array`);
      return base;
    }
    const shape = base[0] ?? { sizeBytes: 1, eraseUs: 1 };
    return over.map((item, i) => mergeComplete(shape, item, `${path}[${i}]`, problems));
  }
  if (!isRecord(base) || !isRecord(over)) {
    problems.push(`${path}: must be an object`);
    return base;
  }
  const out: Record<string, Json> = { ...base };
  const optional = OPTIONAL_KEYS[path] ?? {};
  for (const [k, v] of Object.entries(over)) {
    const sub = path === '' ? k : `${path}.${k}`;
    const shape = Object.prototype.hasOwnProperty.call(base, k) ? base[k] : optional[k];
    if (shape === undefined) problems.push(`${sub}: unknown key (known: ${[...new Set([...Object.keys(base), ...Object.keys(optional)])].join(', ')})`);
    else out[k] = mergeLike(shape, v, sub, k, problems);
  }
  return out;
}

/** An element that must give every key of `shape` (a new erase type has no base values to keep). */
function mergeComplete(shape: Json, item: Json, path: string, problems: string[]): Json {
  if (isRecord(shape) && isRecord(item)) {
    for (const k of Object.keys(shape)) if (!Object.prototype.hasOwnProperty.call(item, k)) problems.push(`${path}.${k}: missing`);
  }
  return mergeLike(shape, item, path, '', problems);
}

/** computeCalibration may add a library the base leaves unscaled, so its keys are the library names. */
function mergeCalibration(base: TargetProfile['computeCalibration'], over: Json, problems: string[]): TargetProfile['computeCalibration'] {
  if (!isRecord(over)) {
    problems.push('computeCalibration: must be an object');
    return base;
  }
  const out: Partial<Record<KernelLibrary, { scale: number; source: string }>> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const lib = KERNEL_LIBRARIES.find((l) => l === k);
    if (lib === undefined) {
      problems.push(`computeCalibration.${k}: unknown kernel library (known: ${KERNEL_LIBRARIES.join(', ')})`);
      continue;
    }
    const shape = base[lib] ?? { scale: 1, source: '' };
    const merged = base[lib] === undefined ? mergeComplete(shape, v, `computeCalibration.${k}`, problems) : mergeLike(shape, v, `computeCalibration.${k}`, k, problems);
    if (isRecord(merged) && typeof merged['scale'] === 'number' && typeof merged['source'] === 'string') {
      out[lib] = { scale: merged['scale'], source: merged['source'] };
    }
  }
  return out;
}

function builds(t: TargetProfile, kind: (typeof STORAGE_KINDS)[number]): boolean {
  try {
    createStorage(t, kind);
    return true;
  } catch (e) {
    if (e instanceof McusimError) return false;
    throw e;
  }
}

/**
 * `base` with `overrides` (parsed JSON) applied. A UsageError lists every problem; a merged profile
 * whose storage geometry no device accepts (an erase type that does not tile the sectors, say) is
 * refused the same way.
 */
export function overrideTarget(base: TargetProfile, overrides: Json): TargetProfile {
  if (!isRecord(overrides)) throw new UsageError('target overrides: must be a JSON object');
  const problems: string[] = [];
  const { computeCalibration, ...rest } = overrides;
  const merged = mergeLike(base, rest, '', '', problems) as TargetProfile;
  const target: TargetProfile = computeCalibration === undefined ? merged : { ...merged, computeCalibration: mergeCalibration(base.computeCalibration, computeCalibration, problems) };
  if (problems.length > 0) throw new UsageError(`target overrides:\n  ${problems.join('\n  ')}`);
  // Every storage device the base profiles must still build (a board without spill storage has none:
  // the base is only probed when the merged profile fails to build one).
  for (const kind of STORAGE_KINDS) {
    try {
      createStorage(target, kind);
    } catch (e) {
      if (!(e instanceof McusimError)) throw e;
      if (builds(base, kind)) throw new UsageError(`target overrides: ${kind} storage: ${e.message}`);
    }
  }
  return target;
}
