// The pure candidate evaluation functions by kind, for evaluators that cannot be handed a function
// (a worker thread gets the kind name and looks the function up here). Each is the one the search
// passes to its evaluator (evaluator.ts), so a pooled run computes exactly what a serial one does.
import { UsageError } from '../ir/index.ts';
import type { EvalKind } from './evaluator.ts';
import { evaluateTilingCandidate } from './tiling/index.ts';
import { evaluateSweepLatency, evaluateSweepSplit } from './tinyseg/index.ts';

type AnyEvalFn = (context: never, item: never) => unknown;

const EVALUATORS: Readonly<Record<EvalKind, AnyEvalFn>> = {
  tiling: evaluateTilingCandidate,
  'sweep-split': evaluateSweepSplit,
  'sweep-latency': evaluateSweepLatency,
};

/** The evaluation function of `kind` applied to one item (context and item as structured-cloned). */
export function evaluateCandidate(kind: string, context: unknown, item: unknown): unknown {
  const fn = (EVALUATORS as Readonly<Record<string, AnyEvalFn>>)[kind];
  if (fn === undefined) throw new UsageError(`unknown candidate kind '${kind}'; known: ${Object.keys(EVALUATORS).join(', ')}`);
  return (fn as (c: unknown, i: unknown) => unknown)(context, item);
}
