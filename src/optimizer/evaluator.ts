// Candidate evaluation as an injectable step (issue 15): the tiling search, `auto` and the TinySeg
// spill sweep each hand a batch of candidate descriptions and one shared context to an evaluator,
// with the pure function that scores one candidate. The library's evaluator runs them in order on
// this thread; the CLI injects a pooled one (worker threads, src/cli/worker-pool.ts) that looks the
// function up by kind in candidate-eval.ts. Results come back in item order either way, and the
// first failing item's error is thrown, so callers see the serial behaviour.

/** Which pure evaluation function a batch uses (candidate-eval.ts maps kinds to functions). */
export type EvalKind = 'tiling' | 'sweep-split' | 'sweep-latency';

export interface CandidateEvaluator {
  /** fn(context, item) for every item, results in item order; the first failure is thrown. */
  map<C, I, R>(kind: EvalKind, fn: (context: C, item: I) => R, context: C, items: readonly I[]): R[];
}

/** The library default: every candidate in order on the calling thread. */
export const serialEvaluator: CandidateEvaluator = {
  map: (_kind, fn, context, items) => items.map((item) => fn(context, item)),
};
