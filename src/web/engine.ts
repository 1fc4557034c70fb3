// The page's engine: the model loaded, the last optimized one, and the library calls behind each
// request (protocol.ts EngineCalls). It lives in a worker (engine-worker.ts): planning, costing and
// optimizing a model take from milliseconds to minutes, and browsers compile large WebAssembly
// modules synchronously only off the UI thread. A model is loaded as `mcusim` loads a MODEL
// argument: zoo:NAME is built, a file is parsed and refused, with run's error, when a kernel
// constraint fails (loadRunnableModel). A file that records the kernel library its plan was made
// for says so, and the page shows that build first (as the CLI reads it without --kernels).
import { loadModel, zooModel } from '../api/index.ts';
import type { Model } from '../ir/index.ts';
import { UsageError, readPlanKernels, recordsPlanKernels } from '../ir/index.ts';
import { checkGraphConstraints } from '../kernels/index.ts';
import { analyzeModel, boardLatency } from './analyze.ts';
import { latencyOn } from './cli-equivalents.ts';
import { makeDownload } from './downloads.ts';
import { optimizeForPage } from './optimize-task.ts';
import { overlapOf } from './overlap-task.ts';
import type { EngineCalls, EngineKind, ModelSource } from './protocol.ts';

interface Loaded {
  readonly model: Model;
  readonly label: string;
}

interface OptimizedState {
  readonly model: Model;
  readonly fileName: string;
  readonly passes: readonly string[];
}

export type EngineHandlers = { readonly [K in EngineKind]: (args: EngineCalls[K]['args']) => EngineCalls[K]['result'] };

function loadSource(source: ModelSource): Loaded {
  if (source.kind === 'zoo') {
    if (source.name === '') throw new UsageError("'zoo:' names no zoo model (try 'mcusim zoo list')");
    return { model: zooModel(source.name), label: `zoo:${source.name}` };
  }
  const model = loadModel(source.bytes, source.name);
  checkGraphConstraints(model.graph);
  return { model, label: source.name };
}

/** The handlers of one page session; `log` receives progress lines (optimize's stderr). */
export function createEngine(log: (line: string) => void): EngineHandlers {
  let loaded: Loaded | null = null;
  let optimized: OptimizedState | null = null;
  const current = (): Loaded => {
    if (loaded === null) throw new UsageError('no model loaded: drop a .tflite file or choose a zoo model');
    return loaded;
  };
  const lastOptimized = (): OptimizedState => {
    if (optimized === null) throw new UsageError('nothing optimized yet: choose passes and press Optimize');
    return optimized;
  };
  return {
    load: ({ source }) => {
      // A model that fails to load leaves none loaded: every later figure would be the old model's.
      loaded = null;
      optimized = null;
      loaded = loadSource(source);
      const m = loaded.model;
      const recorded = recordsPlanKernels(m) ? readPlanKernels(m) : null;
      return { label: loaded.label, recorded: recorded === null ? null : { kernels: recorded.library, cpu: recorded.cpu } };
    },
    analyze: ({ build }) => analyzeModel(current().model, current().label, build),
    latency: ({ board, build }) => boardLatency(latencyOn(current().model, board, build)),
    optimize: (req) => {
      const { model, label } = current();
      optimized = null;
      const out = optimizeForPage(model, label, req, log);
      // Code and a report are for a file optimize writes: none when it refuses the result.
      if (out.result.bytes !== null) optimized = { model: out.model, fileName: out.result.fileName, passes: out.result.passes.map((p) => p.pass) };
      return out.result;
    },
    overlap: ({ opIndex, build }) => overlapOf(current().model, current().label, opIndex, build),
    download: ({ kind, build, verification }) => {
      const { model, label } = current();
      const o = lastOptimized();
      return makeDownload(kind, { original: model, label, optimized: o.model, optimizedName: o.fileName, passes: o.passes, build, verification, log });
    },
  };
}
