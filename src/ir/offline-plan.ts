// TFLM's offline memory plan: metadata "OfflineMemoryAllocation" holding little-endian int32 words
// [w0, w1, nbr_tensors, offset of tensor 0 .. n-1], -1 = plan this tensor at runtime. Mirrors
// AllocationInfoBuilder::GetOfflinePlannedOffsets (micro_allocation_info.cc): it reads only the
// third word and the offsets, so the first two are ignored here too (Vela writes [0, 1, n], XMOS's
// compiler [0, 0, n]); mcusim writes [1, 0, n] (version 1, subgraph 0).
import { ModelError } from './errors.ts';
import type { Issue } from './errors.ts';
import type { MetadataEntry, Model } from './graph.ts';

export const OFFLINE_PLAN_METADATA_NAME = 'OfflineMemoryAllocation';
const OFFLINE_PLAN_VERSION = 1;
const HEADER_WORDS = 3;
const INT32_MAX = 2 ** 31 - 1;

function planEntries(model: Model): MetadataEntry[] {
  return model.metadata.filter((m) => m.name === OFFLINE_PLAN_METADATA_NAME);
}

/** Decodes the plan words after checking them; returns the issue instead when they are wrong. */
function decodePlan(entry: MetadataEntry, tensorCount: number): Int32Array | Issue {
  const bad = (message: string): Issue => ({ code: 'E_MODEL_METADATA', message: `${OFFLINE_PLAN_METADATA_NAME}: ${message}` });
  const d = entry.data;
  if (d.length % 4 !== 0 || d.length < HEADER_WORDS * 4) return bad(`${d.length} bytes is not a whole header of int32 words`);
  const view = new DataView(d.buffer, d.byteOffset, d.length);
  const word = (i: number): number => view.getInt32(i * 4, true);
  const count = word(2);
  if (count !== tensorCount) return bad(`plans ${count} tensors, the graph has ${tensorCount}`);
  if (d.length !== (HEADER_WORDS + count) * 4) return bad(`${d.length} bytes, expected ${(HEADER_WORDS + count) * 4} for ${count} tensors`);
  const offsets = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    const offset = word(HEADER_WORDS + i);
    if (offset < -1) return { ...bad(`tensor ${i} has offset ${offset}; offsets are >= 0, or -1 for online planning`), tensorIndex: i };
    offsets[i] = offset;
  }
  return offsets;
}

/** Problems with the offline plan metadata, if the model carries one (used by validateModel). */
export function offlinePlanIssues(model: Model): Issue[] {
  const entries = planEntries(model);
  if (entries.length > 1) return [{ code: 'E_MODEL_METADATA', message: `${entries.length} ${OFFLINE_PLAN_METADATA_NAME} metadata entries, expected at most one` }];
  const entry = entries[0];
  if (entry === undefined) return [];
  const plan = decodePlan(entry, model.graph.tensors.length);
  return plan instanceof Int32Array ? [] : [plan];
}

/** The planned arena offset of each tensor (-1 = planned online), or null without a plan. */
export function readOfflinePlan(model: Model): Int32Array | null {
  const issues = offlinePlanIssues(model);
  if (issues.length > 0) throw ModelError.fromIssues(issues);
  const entry = planEntries(model)[0];
  if (entry === undefined) return null;
  const plan = decodePlan(entry, model.graph.tensors.length);
  if (!(plan instanceof Int32Array)) throw ModelError.fromIssues([plan]);
  return plan;
}

/** A copy of `model` whose OfflineMemoryAllocation metadata holds `offsets` (one per tensor). */
export function withOfflinePlan(model: Model, offsets: readonly number[]): Model {
  const n = model.graph.tensors.length;
  if (offsets.length !== n) {
    throw new ModelError('E_MODEL_METADATA', `offline plan has ${offsets.length} offsets, the graph has ${n} tensors`);
  }
  const bytes = new Uint8Array((HEADER_WORDS + n) * 4);
  const view = new DataView(bytes.buffer);
  [OFFLINE_PLAN_VERSION, 0, n].forEach((w, i) => view.setInt32(i * 4, w, true));
  offsets.forEach((offset, i) => {
    if (!Number.isInteger(offset) || offset < -1 || offset > INT32_MAX) {
      throw new ModelError('E_MODEL_METADATA', `offline plan offset ${offset} of tensor ${i} is not -1 or an int32 >= 0`);
    }
    view.setInt32((HEADER_WORDS + i) * 4, offset, true);
  });
  const entry: MetadataEntry = { name: OFFLINE_PLAN_METADATA_NAME, data: bytes };
  const others = model.metadata.filter((m) => m.name !== OFFLINE_PLAN_METADATA_NAME);
  const at = model.metadata.findIndex((m) => m.name === OFFLINE_PLAN_METADATA_NAME);
  const metadata = at === -1 ? [...model.metadata, entry] : [...others.slice(0, at), entry, ...others.slice(at)];
  return { ...model, metadata };
}

/**
 * Which kernel library an offline plan was made for: metadata "mcusim_plan_kernels" holding UTF-8
 * `<library>` or `<library> <cpu>` (TFLM ignores metadata it does not know). A plan's safe overlaps
 * hold for one library's access order. mcusim records it on every plan it writes; a file without
 * the entry (written before, or by another tool) is taken as planned for the reference kernels.
 */
export const PLAN_KERNELS_METADATA_NAME = 'mcusim_plan_kernels';

export interface PlanKernels {
  readonly library: string;
  readonly cpu: string | null;
}

/** The library the model's offline plan was made for (reference when the entry is absent). */
export function readPlanKernels(model: Model): PlanKernels {
  const entry = model.metadata.find((m) => m.name === PLAN_KERNELS_METADATA_NAME);
  if (entry === undefined) return { library: 'reference', cpu: null };
  const [library, cpu] = new TextDecoder().decode(entry.data).trim().split(/\s+/);
  if (library === undefined || library === '') throw new ModelError('E_MODEL_METADATA', `${PLAN_KERNELS_METADATA_NAME}: empty`);
  return { library, cpu: cpu ?? null };
}

/** Whether the model records the library its plan was made for (readPlanKernels assumes reference otherwise). */
export function recordsPlanKernels(model: Model): boolean {
  return model.metadata.some((m) => m.name === PLAN_KERNELS_METADATA_NAME);
}

/** `model` recording that its offline plan is for `k`. */
export function withPlanKernels(model: Model, k: PlanKernels): Model {
  const others = model.metadata.filter((m) => m.name !== PLAN_KERNELS_METADATA_NAME);
  const data = new TextEncoder().encode(k.cpu === null ? k.library : `${k.library} ${k.cpu}`);
  return { ...model, metadata: [...others, { name: PLAN_KERNELS_METADATA_NAME, data }] };
}
