// `mcusim verify ORIGINAL OPTIMIZED [--seeds N] [--storage KIND] [--compress] [--json]` (DESIGN.md
// §4, §9): runs both models on N seeded random inputs (the optimized one at its OfflineMemoryAllocation
// plan, with the Valgrind-style tracer on and its Spill / Fetching blocks through a byte-accurate
// storage device), compares every output byte and reports the first differing byte per output, every
// trace violation and every storage round-trip fault. Exit 0 only if all match and both are clean.
import type { Command } from 'commander';
import type { Model } from '../../ir/index.ts';
import { PlanError, UsageError, byteSize } from '../../ir/index.ts';
import type { PlannedModel } from '../../optimizer/index.ts';
import { preparePlannedModel, runPlanned } from '../../optimizer/index.ts';
import type { StorageKind, TraceViolation } from '../../sim/index.ts';
import { Tracer, createStorage, isStorageKind, niclaVision } from '../../sim/index.ts';
import { renderTable } from '../format.ts';
import { loadModel } from '../load-model.ts';

interface VerifyOptions {
  readonly seeds: string;
  readonly storage?: string;
  readonly compress?: boolean;
  readonly json?: boolean;
}

/** Where the optimized model's spilled tensors go (TinySeg storage ops); default: internal flash. */
export interface VerifyStorageOptions {
  readonly storage?: StorageKind;
  readonly compress?: boolean;
}

/** The storage round trip of the optimized runs; null when the model has no storage ops. */
export interface VerifyStorageReport {
  readonly device: string;
  readonly compressed: boolean;
  /** Spill and fetch transfers over all seeds. */
  readonly transfers: number;
  readonly storedBytes: number;
  /** A fetched block that differs from what was spilled, or storage accesses out of place. */
  readonly violations: readonly string[];
}

export interface VerifyMismatch {
  readonly seed: number;
  readonly output: number;
  readonly name: string;
  readonly firstByte: number;
  readonly expected: number;
  readonly actual: number;
  readonly differingBytes: number;
}

export interface VerifyViolation extends TraceViolation {
  readonly seed: number;
}

export interface VerifyReport {
  readonly seeds: number;
  readonly identical: boolean;
  readonly traceClean: boolean;
  /** The static plan check (verifyPlan with the graph's safe overlaps); null when it passed. */
  readonly planError: string | null;
  readonly originalPeakBytes: number;
  readonly optimizedPeakBytes: number;
  readonly mismatches: readonly VerifyMismatch[];
  readonly violations: readonly VerifyViolation[];
  readonly storage: VerifyStorageReport | null;
}

function checkInterfaces(a: Model, b: Model): void {
  const sig = (m: Model, ts: readonly number[]): string =>
    ts.map((t) => {
      const x = m.graph.tensors[t];
      return x ? `${x.dtype}[${x.shape.join('x')}]` : '?';
    }).join(',');
  for (const k of ['inputs', 'outputs'] as const) {
    if (sig(a, a.graph[k]) !== sig(b, b.graph[k])) {
      throw new UsageError(`the models' ${k} differ: ${sig(a, a.graph[k])} vs ${sig(b, b.graph[k])}`);
    }
  }
}

/** The optimized model at its own plan; a plan that fails the static check still runs, traced. */
function prepareOptimized(model: Model, so: VerifyStorageOptions): { pm: PlannedModel; planError: string | null } {
  const storage = { ...(so.storage ? { storage: createStorage(niclaVision, so.storage) } : {}), ...(so.compress ? { compress: true } : {}) };
  try {
    return { pm: preparePlannedModel(model, storage), planError: null };
  } catch (e) {
    if (!(e instanceof PlanError)) throw e;
    return { pm: preparePlannedModel(model, { ...storage, verify: false }), planError: `${e.code}: ${e.message}` };
  }
}

function compare(seed: number, model: Model, expected: readonly Uint8Array[], actual: readonly Uint8Array[]): VerifyMismatch[] {
  const out: VerifyMismatch[] = [];
  expected.forEach((e, k) => {
    const a = actual[k] ?? new Uint8Array(0);
    let first = -1;
    let count = 0;
    for (let i = 0; i < Math.max(e.length, a.length); i++) {
      if (e[i] !== a[i]) {
        if (first < 0) first = i;
        count++;
      }
    }
    if (first < 0) return;
    const t = model.graph.tensors[model.graph.outputs[k] ?? -1];
    out.push({ seed, output: k, name: t?.name ?? `output ${k}`, firstByte: first, expected: e[first] ?? -1, actual: a[first] ?? -1, differingBytes: count });
  });
  return out;
}

/** Run both models on seeds 1..N and compare; the optimized runs are traced. */
export function verifyModels(original: Model, optimized: Model, seeds: number, so: VerifyStorageOptions = {}): VerifyReport {
  if (!Number.isSafeInteger(seeds) || seeds < 1) throw new UsageError(`--seeds must be a positive integer, got ${seeds}`);
  checkInterfaces(original, optimized);
  const base = preparePlannedModel(original);
  const { pm, planError } = prepareOptimized(optimized, so);
  const mismatches: VerifyMismatch[] = [];
  const violations: VerifyViolation[] = [];
  for (let seed = 1; seed <= seeds; seed++) {
    const ref = runPlanned(base, { seed });
    const tracer = new Tracer({ graph: pm.graph, tensorOffsets: pm.tensorOffsets, scratchOffsets: pm.scratchOffsets, arenaBytes: pm.arenaBytes });
    const got = runPlanned(pm, { inputs: ref.inputs, trace: tracer.sink });
    tracer.finish();
    mismatches.push(...compare(seed, original, ref.outputs, got.outputs));
    violations.push(...tracer.violations().map((v) => ({ ...v, seed })));
  }
  const store = pm.runtime.spillStore;
  const storage: VerifyStorageReport | null = store === null ? null : {
    device: store.device.name,
    compressed: so.compress === true,
    transfers: store.log.length,
    storedBytes: store.log.filter((e) => e.direction === 'spill').reduce((a, e) => a + e.storedBytes, 0),
    violations: [...store.violations],
  };
  return {
    seeds,
    identical: mismatches.length === 0,
    traceClean: violations.length === 0 && planError === null && (storage?.violations.length ?? 0) === 0,
    planError,
    originalPeakBytes: base.plan.peakBytes,
    optimizedPeakBytes: pm.plan.peakBytes,
    mismatches,
    violations,
    storage,
  };
}

export function verifyPassed(r: VerifyReport): boolean {
  return r.identical && r.traceClean;
}

function text(r: VerifyReport, original: Model): string {
  const outBytes = original.graph.outputs.map((t) => {
    const x = original.graph.tensors[t];
    return x ? byteSize(x.dtype, x.shape) : 0;
  });
  const lines = [
    `seeds: ${r.seeds}; outputs: ${outBytes.length} (${outBytes.reduce((s, b) => s + b, 0)} B per run)`,
    `arena: original ${r.originalPeakBytes} B, optimized ${r.optimizedPeakBytes} B`,
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

export function runVerify(originalArg: string, optimizedArg: string, opts: VerifyOptions): number {
  const seeds = Number(opts.seeds);
  if (!Number.isSafeInteger(seeds) || seeds < 1) throw new UsageError(`--seeds must be a positive integer, got '${opts.seeds}'`);
  if (opts.storage !== undefined && !isStorageKind(opts.storage)) throw new UsageError(`--storage must be internal, external or remote, got '${opts.storage}'`);
  const original = loadModel(originalArg);
  const optimized = loadModel(optimizedArg);
  const report = verifyModels(original, optimized, seeds, { ...(opts.storage !== undefined ? { storage: opts.storage as StorageKind } : {}), ...(opts.compress ? { compress: true } : {}) });
  process.stdout.write(opts.json ? `${JSON.stringify(report)}\n` : `${text(report, original)}\n`);
  return verifyPassed(report) ? 0 : 1;
}

export function registerVerify(program: Command, setExit: (code: number) => void): void {
  program
    .command('verify')
    .description('run ORIGINAL and OPTIMIZED on seeded inputs, compare every output byte, trace the optimized run')
    .argument('<original>', 'a .tflite file or zoo:<name>')
    .argument('<optimized>', 'a .tflite file or zoo:<name>')
    .option('--seeds <n>', 'number of seeded random inputs (seeds 1..N)', '3')
    .option('--storage <kind>', 'device for spilled tensors: internal, external or remote (default internal flash)')
    .option('--compress', 'MFV-compress spilled blocks (TinySeg §5.1)')
    .option('--json', 'print one JSON document')
    .action((original: string, optimized: string, opts: VerifyOptions) => setExit(runVerify(original, optimized, opts)));
}
