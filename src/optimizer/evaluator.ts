// Candidate evaluation as an injectable step (issue 15): the tiling search, `auto` and the TinySeg
// spill sweep each hand a batch of candidate descriptions and one shared context to an evaluator,
// with the pure function that scores one candidate. The library's evaluator runs them in order on
// this thread; the CLI injects a pooled one (worker threads, src/cli/worker-pool.ts) that looks the
// function up by kind in candidate-eval.ts. Results come back in item order either way, and the
// first failing item's error is thrown, so callers see the serial behaviour. Contexts name the kernel
// library (KernelNames) rather than hold its registry, so they cross to a worker intact.
import { kernelRegistry } from '../kernels/index.ts';
import type { KernelRegistry } from '../kernels/index.ts';

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

/**
 * A kernel registry by name, as a candidate context carries it: a KernelRegistry holds spec
 * functions, which cannot be structured-cloned to a worker thread, so contexts name the library and
 * CPU and each evaluation rebuilds the registry (kernelRegistry: prebuilt tables, no cost).
 */
export interface KernelNames {
  readonly library: string;
  readonly cpu: string | null;
}

/** The names of `registry` (undefined: the reference kernels, named by nothing). */
export function kernelNamesOf(registry: KernelRegistry | undefined): KernelNames | undefined {
  return registry === undefined || registry.library === 'reference' ? undefined : { library: registry.library, cpu: registry.cpu };
}

/** The registry `names` name (undefined: the reference kernels, as every default). */
export function registryOfNames(names: KernelNames | undefined): KernelRegistry | undefined {
  return names === undefined ? undefined : kernelRegistry(names.library, names.cpu ?? undefined);
}
