// Latency of one model on a board as `mcusim latency` computes a cell (TinySeg Table 5): sim's
// estimateLatency over the graph; with compression, the spilled tensors' real bytes come from a planned
// run (seeded random inputs by default, or all-zero ones as in TinySeg's benchmark sketch), since the
// MFV codec's output size depends on them.
import type { Model } from '../ir/index.ts';
import { byteSize } from '../ir/index.ts';
import type { LatencyOptions, LatencyReport } from '../sim/index.ts';
import { estimateLatency, storageTransfers } from '../sim/index.ts';
import { preparePlannedModel, runPlanned } from './run-planned.ts';

export type PayloadOf = (tensor: number) => Uint8Array | null;

/**
 * Inputs of the run whose spilled bytes the MFV codec compresses: seeded random (randomInputs) or
 * 'zero', the zeroed input tensor of TinySeg's sketch (application.ino). Random is the default because
 * a constant image makes every feature map constant per channel away from its borders, so its
 * compressed size counts the channels ReLU clamps, not the value statistics TinySeg §5.1 describes
 * ("around 50%" of a tensor is its most frequent value, Figure 9(b)). zoo:tiny-unet's spilled tensor:
 * 73.6% most-frequent value from zeros (6 of 8 channels ~97%, 2 ~0%), 44.5% from seed 1.
 */
export type PayloadInputs = 'zero' | { readonly seed: number };

export const DEFAULT_PAYLOAD_INPUTS: PayloadInputs = { seed: 1 };

export interface SpillPayloadOptions {
  /** Absent or undefined: DEFAULT_PAYLOAD_INPUTS (resolved here only). */
  readonly inputs?: PayloadInputs | undefined;
}

/** "seed 1 random inputs" / "all-zero inputs", for reports. */
export function describePayloadInputs(inputs: PayloadInputs = DEFAULT_PAYLOAD_INPUTS): string {
  return inputs === 'zero' ? 'all-zero inputs' : `seed ${inputs.seed} random inputs`;
}

/** Bytes of every spilled tensor from one planned run; null when the model spills nothing. */
export function captureSpillPayloads(model: Model, opts: SpillPayloadOptions = {}): PayloadOf | null {
  const spills = storageTransfers(model.graph).flat().filter((t) => t.direction === 'spill');
  if (spills.length === 0) return null;
  const pm = preparePlannedModel(model);
  const inputs = opts.inputs ?? DEFAULT_PAYLOAD_INPUTS;
  const run = inputs === 'zero'
    ? runPlanned(pm, { inputs: pm.graph.inputs.map((t) => { const x = pm.graph.tensors[t]; return new Uint8Array(x ? byteSize(x.dtype, x.shape) : 0); }), captureTensors: true })
    : runPlanned(pm, { seed: inputs.seed, captureTensors: true });
  return (t) => run.tensors?.[t] ?? null;
}

export interface ModelLatencyOptions extends Omit<LatencyOptions, 'payloadOf'>, SpillPayloadOptions {
  /** Payloads already captured for this model (skips the run); only read with `compress`. */
  readonly payloadOf?: PayloadOf | null;
}

/** One latency cell: payloads are captured only when compression needs them. */
export function estimateModelLatency(model: Model, opts: ModelLatencyOptions): LatencyReport {
  const { inputs, payloadOf: given, ...latency } = opts;
  const payloadOf = opts.compress === true ? (given !== undefined ? given : captureSpillPayloads(model, { inputs })) : null;
  return estimateLatency(model.graph, { ...latency, ...(payloadOf ? { payloadOf } : {}) });
}
