// Instruction counts predicted by the latency model against a real build's recorded counts (issue 54):
// per model, every op's error, the share of ops of >= 10,000 instructions within 10% and 5%, and the
// whole Invoke's error. The records are the oracle's instructions-m7 / instructions-m55 JSONs (one per
// model: ops [{ index, opcode, instructions }], invoke_instructions); the CLI finds and loads them.
import type { Graph } from '../ir/index.ts';
import type { TargetProfile } from '../sim/index.ts';
import { estimateLatency } from '../sim/index.ts';

/** One model's recorded counts (instructions-m7 / instructions-m55 JSON). */
export interface InstructionRecord {
  readonly model: string;
  readonly ops: readonly { readonly index: number; readonly opcode: string; readonly instructions: number }[];
  readonly invoke_instructions: number;
}

export interface OpInstructionError {
  readonly index: number;
  readonly opcode: string;
  readonly recorded: number;
  readonly predicted: number;
  readonly error: number;
}

export interface ModelInstructionResult {
  readonly model: string;
  readonly board: string;
  readonly recordedInvoke: number;
  readonly predictedInvoke: number;
  readonly invokeError: number;
  /** Ops of at least BIG_OP instructions, and how many are within 10% and 5%. */
  readonly bigOps: number;
  readonly within10: number;
  readonly within5: number;
  readonly estimatedOps: number;
  readonly worst: OpInstructionError | null;
}

/** The acceptance's threshold: ops executing at least this many instructions are judged. */
export const BIG_OP = 10_000;

export function validateModelInstructions(name: string, graph: Graph, record: InstructionRecord, target: TargetProfile): ModelInstructionResult {
  const r = estimateLatency(graph, { target, library: 'cmsis-nn', engine: 'tflm' });
  let bigOps = 0;
  let within10 = 0;
  let within5 = 0;
  let worst: OpInstructionError | null = null;
  for (const o of record.ops) {
    if (o.instructions < BIG_OP) continue;
    bigOps++;
    const predicted = r.ops[o.index]?.instructions ?? Number.NaN;
    const error = predicted / o.instructions - 1;
    if (Math.abs(error) <= 0.1) within10++;
    if (Math.abs(error) <= 0.05) within5++;
    if (worst === null || !(Math.abs(error) <= Math.abs(worst.error))) worst = { index: o.index, opcode: o.opcode, recorded: o.instructions, predicted, error };
  }
  return {
    model: name, board: target.name, recordedInvoke: record.invoke_instructions, predictedInvoke: r.instructions,
    invokeError: r.instructions / record.invoke_instructions - 1, bigOps, within10, within5, estimatedOps: r.estimatedOps.length, worst,
  };
}

export interface InstructionSummary {
  readonly models: number;
  readonly bigOps: number;
  readonly within10: number;
  readonly within5: number;
  readonly totalsWithin3: number;
  readonly worstInvokeError: number;
}

export function summarizeInstructions(rs: readonly ModelInstructionResult[]): InstructionSummary {
  return {
    models: rs.length,
    bigOps: rs.reduce((a, r) => a + r.bigOps, 0),
    within10: rs.reduce((a, r) => a + r.within10, 0),
    within5: rs.reduce((a, r) => a + r.within5, 0),
    totalsWithin3: rs.filter((r) => Math.abs(r.invokeError) <= 0.03).length,
    worstInvokeError: Math.max(0, ...rs.map((r) => Math.abs(r.invokeError))),
  };
}
