// Latency of one model on a board as `mcusim latency` computes a cell (TinySeg Table 5): sim's
// estimateLatency over the graph; with compression, the spilled tensors' real bytes come from a planned
// run with all-zero inputs (TinySeg's benchmark sketch feeds a zeroed input tensor) or seeded random
// ones, since the MFV codec's output size depends on them.
import type { Model } from '../ir/index.ts';
import { byteSize } from '../ir/index.ts';
import type { LatencyOptions, LatencyReport } from '../sim/index.ts';
import { estimateLatency, storageTransfers } from '../sim/index.ts';
import { preparePlannedModel, runPlanned } from './run-planned.ts';

export type PayloadOf = (tensor: number) => Uint8Array | null;

export interface SpillPayloadOptions {
  /** null or absent: all-zero inputs; a number: seeded random inputs (randomInputs). */
  readonly seed?: number | null;
}

/** Bytes of every spilled tensor from one planned run; null when the model spills nothing. */
export function captureSpillPayloads(model: Model, opts: SpillPayloadOptions = {}): PayloadOf | null {
  const spills = storageTransfers(model.graph).flat().filter((t) => t.direction === 'spill');
  if (spills.length === 0) return null;
  const pm = preparePlannedModel(model);
  const seed = opts.seed ?? null;
  const run = seed === null
    ? runPlanned(pm, { inputs: pm.graph.inputs.map((t) => { const x = pm.graph.tensors[t]; return new Uint8Array(x ? byteSize(x.dtype, x.shape) : 0); }), captureTensors: true })
    : runPlanned(pm, { seed, captureTensors: true });
  return (t) => run.tensors?.[t] ?? null;
}

export interface ModelLatencyOptions extends Omit<LatencyOptions, 'payloadOf'>, SpillPayloadOptions {
  /** Payloads already captured for this model (skips the run); only read with `compress`. */
  readonly payloadOf?: PayloadOf | null;
}

/** One latency cell: payloads are captured only when compression needs them. */
export function estimateModelLatency(model: Model, opts: ModelLatencyOptions): LatencyReport {
  const { seed, payloadOf: given, ...latency } = opts;
  const payloadOf = opts.compress === true ? (given !== undefined ? given : captureSpillPayloads(model, { seed: seed ?? null })) : null;
  return estimateLatency(model.graph, { ...latency, ...(payloadOf ? { payloadOf } : {}) });
}
