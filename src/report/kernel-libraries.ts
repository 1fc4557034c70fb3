// The report's "kernel libraries" section (issue 46 item 5): the model as given on the reference
// build and on the CMSIS-NN build (the chosen CPU, else DEFAULT_CMSIS_NN_CPU) side by side: whole
// arena as `inspect --kernels ... --arch cortex-m` computes it (planned, persistent, the scratch the
// kernels request), the DMO pass's saving on each build (its O_s follow the library's access order),
// the estimated latency, and the ops whose safe overlap O_s (algorithmic walk) differs between the
// two libraries. Cheap by design: one DMO run and one O_s walk per library, no search; the chosen
// library's O_s and DMO run are the report's own when it has them (its O_s table, a leading dmo pass).
import type { Model } from '../ir/index.ts';
import { DEFAULT_CMSIS_NN_CPU, describeKernels, kernelRegistry } from '../kernels/index.ts';
import type { KernelRegistry } from '../kernels/index.ts';
import type { PassReport } from '../optimizer/index.ts';
import { arenaTotals, computeModelBufferRequests, dmoPass, estimateModelLatency, safeOverlap } from '../optimizer/index.ts';
import type { KernelLibrary, TargetProfile } from '../sim/index.ts';

/** One library's column. */
export interface LibraryColumn {
  readonly kernels: string;
  readonly cpu: string | null;
  /** "reference" or "cmsis-nn (cortex-m7: DSP)". */
  readonly label: string;
  /** Whole arena on a Cortex-M build (inspect --arch cortex-m). */
  readonly arena: { readonly plannedBytes: number; readonly persistentBytes: number; readonly totalBytes: number };
  /** Scratch buffers the kernels request: their count, summed bytes and the largest one. */
  readonly scratch: { readonly buffers: number; readonly bytes: number; readonly largestBytes: number };
  /** The dmo pass on this build: planned peak and whole arena before and after (null: it failed, `dmoError` says why). */
  readonly dmo: { readonly peakBefore: number; readonly peakAfter: number; readonly totalBefore: number; readonly totalAfter: number; readonly applied: boolean } | null;
  readonly dmoError?: string;
  /** Estimated latency of the model as given on the report's board with this library's kernels. */
  readonly latencyMs: number;
}

/** An op whose O_s differs between the libraries (null: the walk does not apply to that op). */
export interface OsDifference {
  readonly op: number;
  readonly kind: string;
  readonly referenceBytes: number | null;
  readonly cmsisNnBytes: number | null;
}

export interface KernelLibrariesSection {
  readonly reference: LibraryColumn;
  readonly cmsisNn: LibraryColumn;
  /** Ops whose O_s was compared (every builtin op). */
  readonly opsCompared: number;
  readonly osDifferences: readonly OsDifference[];
}

const attempt = (f: () => number): number | null => {
  try {
    return f();
  } catch {
    return null;
  }
};

/** O_s of every builtin op for `registry` (undefined: the reference kernels); null where the walk does not apply. */
export function overlapsFor(model: Model, registry?: KernelRegistry): (number | null)[] {
  const g = model.graph;
  return g.ops.map((op, i) => (op.kind === 'custom' || g.tensors[op.outputs[0] ?? -1] === undefined ? null : attempt(() => safeOverlap(g, i, { method: 'algorithmic', ...(registry === undefined ? {} : { registry }) }))));
}

function column(model: Model, registry: KernelRegistry, target: TargetProfile, dmoReport?: PassReport): LibraryColumn {
  const reg = registry.library === 'reference' ? undefined : registry;
  const a = arenaTotals(model, 'cortex-m', reg);
  const scratch = computeModelBufferRequests(model, reg).filter((r) => r.tensor === null).map((r) => r.sizeBytes);
  let dmo: LibraryColumn['dmo'] = null;
  let dmoError: string | undefined;
  try {
    const r = dmoReport ?? dmoPass.run(model, { flags: {}, arch: 'cortex-m', ...(reg === undefined ? {} : { registry: reg }) }).report;
    const before = r.arena?.before.totalBytes ?? a.totalBytes;
    dmo = { peakBefore: r.peakBytesBefore, peakAfter: r.peakBytesAfter, totalBefore: before, totalAfter: r.arena?.after.totalBytes ?? before, applied: r.applied };
  } catch (e) {
    dmoError = e instanceof Error ? e.message : String(e);
  }
  const latencyMs = estimateModelLatency(model, { target, library: registry.library as KernelLibrary, storage: 'internal', asyncErase: true, compress: false }).totalMs;
  return {
    kernels: registry.library,
    cpu: registry.cpu,
    label: describeKernels(registry),
    arena: { plannedBytes: a.plannedBytes, persistentBytes: a.persistentBytes, totalBytes: a.totalBytes },
    scratch: { buffers: scratch.length, bytes: scratch.reduce((s, b) => s + b, 0), largestBytes: Math.max(0, ...scratch) },
    dmo,
    ...(dmoError === undefined ? {} : { dmoError }),
    latencyMs,
  };
}

/**
 * Both libraries for `model`; `chosen` (the report's registry) picks the CMSIS-NN CPU, and its O_s
 * (`chosenOverlaps`, as the report's O_s table has them) and its dmo pass report on `model` on a
 * cortex-m build (`chosenDmo`) are reused rather than computed again.
 */
export function collectKernelLibraries(
  model: Model, target: TargetProfile, chosen?: KernelRegistry, chosenOverlaps?: readonly (number | null)[], chosenDmo?: PassReport,
): KernelLibrariesSection {
  const cmsis = chosen?.library === 'cmsis-nn' ? chosen : kernelRegistry('cmsis-nn', DEFAULT_CMSIS_NN_CPU);
  const ref = kernelRegistry('reference');
  const isChosen = (r: KernelRegistry): boolean => (chosen?.library ?? 'reference') === r.library && chosenOverlaps !== undefined;
  const refOs = isChosen(ref) ? chosenOverlaps ?? [] : overlapsFor(model);
  const cmsisOs = isChosen(cmsis) ? chosenOverlaps ?? [] : overlapsFor(model, cmsis);
  const osDifferences: OsDifference[] = [];
  let opsCompared = 0;
  model.graph.ops.forEach((op, i) => {
    if (op.kind === 'custom') return;
    opsCompared++;
    const a = refOs[i] ?? null;
    const b = cmsisOs[i] ?? null;
    if (a !== b) osDifferences.push({ op: i, kind: op.kind, referenceBytes: a, cmsisNnBytes: b });
  });
  const dmoOf = (r: KernelRegistry): PassReport | undefined => ((chosen?.library ?? 'reference') === r.library ? chosenDmo : undefined);
  return { reference: column(model, ref, target, dmoOf(ref)), cmsisNn: column(model, cmsis, target, dmoOf(cmsis)), opsCompared, osDifferences };
}
