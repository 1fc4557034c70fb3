// TinySeg Table 5 as one computation (LCTES 2024 §6.2.2): the step models of the tinyseg pass
// (original, + temp. tensor quant., + tensor spilling, + fused fetching) and the final model with
// MFV compression and then asynchronous erase, each timed per storage option by estimateModelLatency.
// Compute speed comes only from the target's calibration; the paper's numbers below are data for
// display (`--paper`), never an input to any cell.
import type { Model } from '../../ir/index.ts';
import type { KernelLibrary, StorageKind, TargetProfile } from '../../sim/index.ts';
import { DEFAULT_KERNEL_LIBRARY, STORAGE_KINDS, storageTransfers } from '../../sim/index.ts';
import { greedyPeakBytes } from './cold-ranges.ts';
import type { PayloadInputs, PayloadOf } from '../model-latency.ts';
import { captureSpillPayloads, estimateModelLatency } from '../model-latency.ts';
import { runTinySeg } from './tinyseg-pass.ts';

export type Table5Step = 'original' | 'tempQuant' | 'spilling' | 'fusedFetching' | 'compression' | 'asyncErase';

export const TABLE5_STEPS: readonly Table5Step[] = ['original', 'tempQuant', 'spilling', 'fusedFetching', 'compression', 'asyncErase'];

/** Row labels as printed in the paper's Table 5. */
export const TABLE5_LABELS: Readonly<Record<Table5Step, string>> = {
  original: 'Original model',
  tempQuant: '+ Temp. tensor quant.',
  spilling: '+ Tensor spilling',
  fusedFetching: '+ Fused fetching',
  compression: '+ Tensor compression',
  asyncErase: '+ Async. block operation',
};

/** Milliseconds per storage option; null where the paper has "N/A" (remote has no flash erase). */
export type Table5Cells = Readonly<Record<StorageKind, number | null>>;

/**
 * TinySeg LCTES 2024 Table 5 "Total Network Latency", Tiny U-Net on the Arduino Nicla Vision
 * (the first two rows are one storage-independent value in the paper).
 */
export const TINYSEG_TABLE5_PAPER_MS: Readonly<Record<Table5Step, Table5Cells>> = {
  original: { internal: 1190, external: 1190, remote: 1190 },
  tempQuant: { internal: 1199, external: 1199, remote: 1199 },
  spilling: { internal: 2421, external: 2494, remote: 1583 },
  fusedFetching: { internal: 2430, external: 2511, remote: 1587 },
  compression: { internal: 2333, external: 2046, remote: 1470 },
  asyncErase: { internal: 1270, external: 1718, remote: null },
};

export interface LatencyTableRow {
  readonly step: Table5Step;
  readonly label: string;
  /** TFLM-greedy peak of the step's model (compression and async erase run the final model). */
  readonly peakBytes: number;
  /** True when the step's model moves nothing to storage, so every column is the same run. */
  readonly storageIndependent: boolean;
  readonly ms: Table5Cells;
}

export interface LatencyTableOptions {
  readonly target: TargetProfile;
  readonly library?: KernelLibrary;
  /** false: the scratch step is the paper's int16 quantization alone (tinyseg flag scratchFree). */
  readonly scratchFree?: boolean;
  /** Inputs of the compression run (absent: DEFAULT_PAYLOAD_INPUTS). */
  readonly payloadInputs?: PayloadInputs;
  /** Progress, one line per step. */
  readonly log?: (line: string) => void;
}

export interface LatencyTable {
  readonly target: string;
  readonly library: KernelLibrary;
  readonly scratchFree: boolean;
  readonly rows: readonly LatencyTableRow[];
}

interface StepVariant {
  readonly step: Table5Step;
  readonly model: Model;
  readonly compress: boolean;
  readonly asyncErase: boolean;
}

/** The tinyseg pass stopped at each of its steps, then the final model with the runtime options. */
function stepVariants(model: Model, scratchFree: boolean): StepVariant[] {
  const base: Readonly<Record<string, boolean>> = scratchFree ? {} : { scratchFree: false };
  const step = (flags: Readonly<Record<string, number | boolean>>): Model => runTinySeg(model, { flags: { ...base, ...flags } }).model;
  const final = step({});
  return [
    { step: 'original', model, compress: false, asyncErase: false },
    { step: 'tempQuant', model: step({ spillPercent: 0 }), compress: false, asyncErase: false },
    { step: 'spilling', model: step({ fusedFetching: false }), compress: false, asyncErase: false },
    { step: 'fusedFetching', model: final, compress: false, asyncErase: false },
    { step: 'compression', model: final, compress: true, asyncErase: false },
    { step: 'asyncErase', model: final, compress: true, asyncErase: true },
  ];
}

/** Table 5 for `model`: 6 rows x internal / external / remote (remote async erase is N/A). */
export function tinysegLatencyTable(model: Model, options: LatencyTableOptions): LatencyTable {
  const library = options.library ?? DEFAULT_KERNEL_LIBRARY;
  const scratchFree = options.scratchFree ?? true;
  const variants = stepVariants(model, scratchFree);
  const payloads = new Map<Model, PayloadOf | null>();
  const payloadsOf = (m: Model): PayloadOf | null => {
    if (!payloads.has(m)) payloads.set(m, captureSpillPayloads(m, { inputs: options.payloadInputs }));
    return payloads.get(m) ?? null;
  };
  const rows = variants.map((v): LatencyTableRow => {
    const storageIndependent = storageTransfers(v.model.graph).every((moves) => moves.length === 0);
    const cell = (storage: StorageKind): number | null => {
      // TinySeg's asynchronous block operation hides flash erases; remote storage has none.
      if (v.asyncErase && storage === 'remote') return null;
      return estimateModelLatency(v.model, {
        target: options.target, library, storage, compress: v.compress, asyncErase: v.asyncErase,
        ...(v.compress ? { payloadOf: payloadsOf(v.model) } : {}),
      }).totalMs;
    };
    const ms: Table5Cells = { internal: cell('internal'), external: cell('external'), remote: cell('remote') };
    const row = { step: v.step, label: TABLE5_LABELS[v.step], peakBytes: greedyPeakBytes(v.model.graph), storageIndependent, ms };
    options.log?.(`${row.label}: peak ${row.peakBytes} B; ${STORAGE_KINDS.map((s) => `${s} ${ms[s] ?? 'N/A'} ms`).join(', ')}`);
    return row;
  });
  return { target: options.target.name, library, scratchFree, rows };
}
