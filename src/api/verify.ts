// Verification of an optimized model against its original (DESIGN.md §4, §9): both run on seeds
// 1..N (the optimized one at its OfflineMemoryAllocation plan, with the Valgrind-style tracer on and
// its Spill / Fetching blocks through a byte-accurate storage device); every output byte is
// compared and every trace violation and storage round-trip fault is reported. `mcusim verify`
// prints this report.
import type { Model } from '../ir/index.ts';
import { InternalError, PlanError, UsageError, readOfflinePlan, readPlanKernels } from '../ir/index.ts';
import type { SharedWasmLowering } from '../kernels/index.ts';
import { WasmLowerings, isCortexMCpu, kernelRegistry } from '../kernels/index.ts';
import type { ArenaTotals, PlannedModel } from '../optimizer/index.ts';
import { checkPlan, preparePlannedModel, preparedArenaTotals, runPlanned, tracerFor } from '../optimizer/index.ts';
import type { StorageKind, TflmArchName, TraceViolation } from '../sim/index.ts';
import { DEFAULT_TFLM_ARCH, createStorage, niclaVision, randomInputs } from '../sim/index.ts';
import type { ReportVerification } from '../report/index.ts';

/** Where the optimized model's spilled tensors go (TinySeg storage ops); default: internal flash. */
export interface VerifyStorageOptions {
  readonly storage?: StorageKind;
  readonly compress?: boolean;
  /** The TFLM build whose whole arena the report gives (default cortex-m). */
  readonly arch?: TflmArchName;
  /** The kernel library both models run with and the optimized one is traced with (default reference). */
  readonly kernels?: 'reference' | 'cmsis-nn';
  /** With cmsis-nn: the CPU picking CMSIS-NN's code path (default cortex-m7). */
  readonly cpu?: string;
}

/** Whole arenas (planned + persistent tail, issue 12) of both models on one arch. */
export interface VerifyArena {
  readonly arch: TflmArchName;
  readonly original: ArenaTotals;
  readonly optimized: ArenaTotals;
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
  /** The kernel library the runs and the trace used, and its CPU (null: reference). */
  readonly kernels: string;
  readonly cpu: string | null;
  /** The library the optimized file's offline plan was made for (its mcusim_plan_kernels metadata;
   * reference without it), and whether it differs from `kernels` / `cpu` (never for a file without an
   * offline plan, which TFLM plans itself; else the plan is checked
   * here against a library it was not proven for: the trace and outputs decide). */
  readonly plannedFor: { readonly kernels: string; readonly cpu: string | null };
  readonly plannedForMismatch: boolean;
  readonly seeds: number;
  readonly identical: boolean;
  readonly traceClean: boolean;
  /** The static plan check (verifyPlan with the graph's safe overlaps); null when it passed. */
  readonly planError: string | null;
  readonly originalPeakBytes: number;
  readonly optimizedPeakBytes: number;
  readonly arena: VerifyArena;
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

/** The storage device and compression of the optimized model's spill ops. */
function storageOptions(so: VerifyStorageOptions): { storage?: ReturnType<typeof createStorage>; compress?: true } {
  return { ...(so.storage ? { storage: createStorage(niclaVision, so.storage) } : {}), ...(so.compress ? { compress: true as const } : {}) };
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

/** What the tracer and the storage device found in one traced run of the optimized model. */
export interface VerifyTraceFindings {
  readonly seed: number;
  readonly violations: readonly VerifyViolation[];
  /** Storage transfers of this seed's optimized run and the bytes it spilled. */
  readonly storageTransfers: number;
  readonly storageStoredBytes: number;
  readonly storageViolations: readonly string[];
}

/** What one seed of a verification found (plain data, structured-clonable). */
export interface VerifySeedResult extends VerifyTraceFindings {
  readonly mismatches: readonly VerifyMismatch[];
}

/** The seed-independent part of a report, known once both models are prepared. */
export interface VerifyHeader {
  readonly kernels: string;
  readonly cpu: string | null;
  readonly plannedFor: { readonly kernels: string; readonly cpu: string | null };
  readonly plannedForMismatch: boolean;
  readonly planError: string | null;
  readonly originalPeakBytes: number;
  readonly optimizedPeakBytes: number;
  readonly arena: VerifyArena;
  /** The storage device of the optimized model's spill ops; null when it has none. */
  readonly storageDevice: string | null;
  readonly compressed: boolean;
}

/** The original model's run of one seed: the reference output bytes. */
export interface VerifyReferencePart {
  readonly seed: number;
  readonly outputs: readonly Uint8Array[];
}

/** The optimized model's traced run of one seed: its output bytes and what the tracer and storage found. */
export interface VerifyTracedPart extends VerifyTraceFindings {
  readonly outputs: readonly Uint8Array[];
}

/** Both models' WebAssembly kernels lowered and compiled by one session (VerifySession.kernels),
 * for opening the same session on another thread (`verify --jobs`). */
export interface VerifyKernels {
  readonly original: readonly SharedWasmLowering[];
  readonly optimized: readonly SharedWasmLowering[];
}

/** Where a session on another thread takes the first session's kernels from: the next batch its
 * `kernels()` handed over (waiting for it if need be), or null when no more will come. Asked only
 * when a lowering is missing; a key still missing after null is lowered on this thread. */
export type VerifyKernelFeed = () => VerifyKernels | null;

/**
 * Both models prepared once; `runSeed` verifies one seed: `runReference` (the original's run) and
 * `runTraced` (the optimized model's traced run, on the same seeded inputs), joined by joinSeedRuns.
 * The two halves are separate so `verify --jobs` can schedule them apart (the short reference runs
 * last, to even out the threads' ends). Every run starts from zeroed arenas, so a seed's result does
 * not depend on which seeds or halves ran before it in this session (what lets workers split the
 * work and still produce the serial report). `header()` checks both plans and computes the whole
 * arenas, once, when first called: after the seeds, off the path to the first seed (with `--jobs`,
 * by whichever thread claims it, before the last reference runs). A failing check of the original's
 * plan (the stock planner's) throws there; the optimized plan's is reported. `kernels()` hands the
 * lowerings and compiled modules made since its last call over (`traced`: after lowering the
 * optimized model's traced code, otherwise lowered on its first traced run); a session opened on
 * the same models with a feed of those batches (VerifyKernelFeed) lowers and compiles nothing.
 * `verify --jobs` sends a worker the models before this thread opens its session, then the fast
 * code, then the traced code: the worker plans and prepares the first model while this thread
 * lowers, and waits for each batch only when it needs a kernel.
 */
export interface VerifySession {
  header(): VerifyHeader;
  kernels(options?: { readonly traced?: boolean }): VerifyKernels;
  runSeed(seed: number): VerifySeedResult;
  runReference(seed: number): VerifyReferencePart;
  runTraced(seed: number): VerifyTracedPart;
}

export function openVerifySession(original: Model, optimized: Model, so: VerifyStorageOptions = {}, feed: VerifyKernelFeed = () => null): VerifySession {
  checkInterfaces(original, optimized);
  let fed = true;
  const fetch = (): boolean => {
    const k = fed ? feed() : null;
    fed = k !== null;
    if (k === null) return false;
    lowerings.original.add(k.original);
    lowerings.optimized.add(k.optimized);
    return true;
  };
  const lowerings = { original: new WasmLowerings([], fetch), optimized: new WasmLowerings([], fetch) };
  const registry = kernelRegistry(so.kernels ?? 'reference', so.cpu);
  const base = preparePlannedModel(original, { verify: false, wasmLowering: lowerings.original.lower, registry });
  const pm = preparePlannedModel(optimized, { ...storageOptions(so), verify: false, wasmLowering: lowerings.optimized.lower, traceShadow: true, registry });
  let header: VerifyHeader | null = null;
  const makeHeader = (): VerifyHeader => {
    checkPlan(base.requests, base.plan, base.graph, registry);
    let planError: string | null = null;
    try {
      checkPlan(pm.requests, pm.plan, pm.graph, registry);
    } catch (e) {
      if (!(e instanceof PlanError)) throw e;
      planError = `${e.code}: ${e.message}`;
    }
    const store = pm.runtime.spillStore;
    const planned = readPlanKernels(optimized);
    // A CPU recorded without one asked for (or the reverse) compares by CMSIS-NN code path.
    const samePath = planned.cpu === registry.cpu ||
      (planned.library === 'cmsis-nn' && registry.library === 'cmsis-nn' && planned.cpu !== null && isCortexMCpu(planned.cpu) && kernelRegistry('cmsis-nn', planned.cpu).specs === registry.specs);
    return {
      kernels: registry.library,
      cpu: registry.cpu,
      plannedFor: { kernels: planned.library, cpu: planned.cpu },
      // Without an offline plan TFLM plans the file itself: no library's overlaps are assumed.
      plannedForMismatch: readOfflinePlan(optimized) !== null && (planned.library !== registry.library || !samePath),
      planError,
      originalPeakBytes: base.plan.peakBytes,
      optimizedPeakBytes: pm.plan.peakBytes,
      arena: { arch: so.arch ?? DEFAULT_TFLM_ARCH, original: preparedArenaTotals(original, base, so.arch, registry), optimized: preparedArenaTotals(optimized, pm, so.arch, registry) },
      storageDevice: store === null ? null : store.device.name,
      compressed: so.compress === true,
    };
  };
  // Both runs of a seed take the original's seeded inputs (the interfaces are checked equal, so they
  // fit the optimized model); runSeed makes them once for both.
  const seeded = (seed: number): Uint8Array[] => randomInputs(base.graph, seed);
  const reference = (seed: number, inputs: Uint8Array[]): VerifyReferencePart => {
    base.runtime.arena.fill(0);
    return { seed, outputs: runPlanned(base, { inputs }).outputs };
  };
  const traced = tracedRunner(pm);
  return {
    header: () => (header ??= makeHeader()),
    kernels: (options = {}) => {
      if (options.traced === true) lowerings.optimized.lowerTraced(pm.runtime.instances);
      return { original: lowerings.original.share(), optimized: lowerings.optimized.share() };
    },
    runSeed: (seed) => {
      const inputs = seeded(seed);
      return joinSeedRuns(original, reference(seed, inputs), traced(seed, inputs));
    },
    runReference: (seed) => reference(seed, seeded(seed)),
    runTraced: (seed) => traced(seed, seeded(seed)),
  };
}

/** One seed's result from its two runs: the optimized outputs compared with the reference bytes
 * (`original` names the outputs in mismatches), with what the traced run found. */
export function joinSeedRuns(original: Model, reference: VerifyReferencePart, traced: VerifyTracedPart): VerifySeedResult {
  if (reference.seed !== traced.seed) throw new InternalError(`verify: joining seed ${reference.seed} with seed ${traced.seed}`);
  const { outputs, ...found } = traced;
  return { ...found, mismatches: compare(traced.seed, original, reference.outputs, outputs) };
}

function tracedRunner(pm: PlannedModel): (seed: number, inputs: Uint8Array[]) => VerifyTracedPart {
  const store = pm.runtime.spillStore;
  // One tracer for every seed (reset before each): its shadow memory is 8 bytes per arena byte.
  const tracer = tracerFor(pm);
  return (seed, inputs) => {
    pm.runtime.arena.fill(0);
    const logBefore = store?.log.length ?? 0;
    const violationsBefore = store?.violations.length ?? 0;
    tracer.reset();
    const got = runPlanned(pm, { inputs, trace: tracer.sink });
    tracer.finish();
    const log = store?.log.slice(logBefore) ?? [];
    return {
      seed,
      outputs: got.outputs,
      violations: tracer.violations().map((v) => ({ ...v, seed })),
      storageTransfers: log.length,
      storageStoredBytes: log.filter((e) => e.direction === 'spill').reduce((a, e) => a + e.storedBytes, 0),
      storageViolations: store?.violations.slice(violationsBefore) ?? [],
    };
  };
}

/** The report of seeds 1..N from their per-seed results (any order in, seed order out). */
export function combineVerifyResults(seeds: number, header: VerifyHeader, results: readonly VerifySeedResult[]): VerifyReport {
  const sorted = [...results].sort((a, b) => a.seed - b.seed);
  if (sorted.length !== seeds || sorted.some((r, i) => r.seed !== i + 1)) throw new InternalError(`verify: expected results for seeds 1..${seeds}`);
  const mismatches = sorted.flatMap((r) => r.mismatches);
  const violations = sorted.flatMap((r) => r.violations);
  const storage: VerifyStorageReport | null = header.storageDevice === null ? null : {
    device: header.storageDevice,
    compressed: header.compressed,
    transfers: sorted.reduce((a, r) => a + r.storageTransfers, 0),
    storedBytes: sorted.reduce((a, r) => a + r.storageStoredBytes, 0),
    violations: sorted.flatMap((r) => r.storageViolations),
  };
  return {
    kernels: header.kernels,
    cpu: header.cpu,
    plannedFor: header.plannedFor,
    plannedForMismatch: header.plannedForMismatch,
    seeds,
    identical: mismatches.length === 0,
    traceClean: violations.length === 0 && header.planError === null && (storage?.violations.length ?? 0) === 0,
    planError: header.planError,
    originalPeakBytes: header.originalPeakBytes,
    optimizedPeakBytes: header.optimizedPeakBytes,
    arena: header.arena,
    mismatches,
    violations,
    storage,
  };
}

export function checkSeeds(seeds: number): void {
  if (!Number.isSafeInteger(seeds) || seeds < 1) throw new UsageError(`seeds must be a positive integer, got ${seeds}`);
}

/**
 * Run both models on seeds 1..N in order on one thread and compare; the optimized runs are traced.
 * `onSeed` is called after each seed (progress).
 */
export function verifyModels(original: Model, optimized: Model, seeds: number, so: VerifyStorageOptions = {}, onSeed?: (seed: number) => void): VerifyReport {
  checkSeeds(seeds);
  const session = openVerifySession(original, optimized, so);
  const results: VerifySeedResult[] = [];
  for (let seed = 1; seed <= seeds; seed++) {
    results.push(session.runSeed(seed));
    onSeed?.(seed);
  }
  return combineVerifyResults(seeds, session.header(), results);
}

export function verifyPassed(r: VerifyReport): boolean {
  return r.identical && r.traceClean;
}

export interface VerifyOptions extends VerifyStorageOptions {
  /** Seeded random inputs 1..seeds (default 3). */
  readonly seeds?: number;
}

export interface VerifyResult extends VerifyReport {
  /** Outputs identical on every seed and the trace, plan and storage checks clean. */
  readonly passed: boolean;
}

/** Verify `optimized` against `original`: same output bytes on every seed, clean trace. */
export function verify(original: Model, optimized: Model, options: VerifyOptions = {}): VerifyResult {
  const { seeds, ...storage } = options;
  const report = verifyModels(original, optimized, seeds ?? 3, storage);
  return { ...report, passed: verifyPassed(report) };
}

const MAX_DETAILS = 8;

/** The report's verification section (`report`, and the web page's): pass, counts and the first details. */
export function reportVerification(r: VerifyReport): ReportVerification {
  const details = [
    ...r.mismatches.map((m) => `seed ${m.seed}, output ${m.output} (${m.name}): ${m.differingBytes} bytes differ, first at byte ${m.firstByte} (${m.expected} expected, ${m.actual} got)`),
    ...r.violations.map((v) => `seed ${v.seed}: ${v.kind} (${v.access}) at step ${v.step}, op ${v.opIndex} ${v.opKind}, address ${v.address}`),
    ...(r.storage?.violations ?? []).map((v) => `storage: ${v}`),
  ];
  return {
    seeds: r.seeds, passed: verifyPassed(r), identical: r.identical, traceClean: r.traceClean, planError: r.planError,
    mismatches: r.mismatches.length, violations: r.violations.length,
    details: details.length > MAX_DETAILS ? [...details.slice(0, MAX_DETAILS), `... ${details.length - MAX_DETAILS} more`] : details,
  };
}
