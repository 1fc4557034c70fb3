// The messages between the page (main.ts, on the UI thread) and its workers: the engine worker
// (engine-worker.ts: loads, plans, costs and optimizes models with the library) and the verify
// workers (verify-worker.ts: one seed at a time). Plain structured-clonable data only, so the types
// are all this file holds; the UI thread never loads the library itself.
import type { VerifyReport, VerifySeedResult } from '../api/index.ts';
import type { BoardFit } from '../sim/index.ts';

export type VerifySeedResultData = VerifySeedResult;

/** The build the page shows figures for: the CLI's --kernels / --cpu / --board / --engine. */
export interface Build {
  readonly kernels: string;
  /** CMSIS-NN's code path (--cpu); ignored with the reference kernels, as the CLI refuses it there. */
  readonly cpu: string;
  readonly board: string;
  readonly engine: string;
}

export type ModelSource =
  | { readonly kind: 'zoo'; readonly name: string }
  | { readonly kind: 'file'; readonly name: string; readonly bytes: Uint8Array };

/** The choices the page offers, from the library's own tables. */
export interface Catalog {
  readonly zoo: readonly { readonly name: string; readonly description: string }[];
  readonly boards: readonly { readonly name: string; readonly description: string; readonly core: string }[];
  readonly defaultBoard: string;
  readonly kernels: readonly string[];
  readonly cpus: readonly string[];
  readonly defaultCpu: string;
  readonly engines: readonly string[];
  readonly passes: readonly string[];
}

export interface OpRow {
  readonly index: number;
  readonly kind: string;
  readonly inputShapes: string;
  readonly outputShapes: string;
  readonly macs: number;
  /** Compute time on the chosen board and its kernel path (latency's per-op figures). */
  readonly ms: number;
  readonly path: string;
}

export interface PlanBuffer {
  readonly tensor: number | null;
  readonly name: string;
  readonly offset: number;
  readonly size: number;
  readonly first: number;
  readonly last: number;
}

/** A board's row: inspect's fit (`inspect --board NAME`) and latency's total and slowest op. */
export interface BoardRow extends Omit<BoardFit, 'board' | 'weightsBytes'> {
  readonly board: string;
  readonly core: string;
  readonly clockMhz: number;
  readonly latencyMs: number;
  readonly heaviestOp: { readonly index: number; readonly kind: string; readonly share: number } | null;
}

export interface LatencyOpRow {
  readonly index: number;
  readonly kind: string;
  readonly path: string;
  readonly macs: number;
  /** Instructions the op's kernel and TFLM's glue execute (`latency --json` ops[].instructions). */
  readonly instructions: number;
  readonly cycles: number;
  readonly ms: number;
  readonly share: number;
}

export interface BoardLatency {
  readonly board: string;
  readonly library: string;
  readonly engine: string;
  readonly core: string;
  readonly clockMhz: number;
  readonly totalMs: number;
  /** One Invoke's instructions, the interpreter's included (`latency --json` instructions). */
  readonly instructions: number;
  readonly ops: readonly LatencyOpRow[];
}

export interface Analysis {
  readonly label: string;
  readonly kernels: string;
  readonly cpu: string | null;
  readonly summary: {
    readonly ops: number;
    readonly tensors: number;
    readonly macs: number;
    readonly weightsBytes: number;
    readonly plannedBytes: number;
    readonly lowerBoundBytes: number;
    readonly arenaBytes: number;
    readonly persistentBytes: number;
    readonly arch: string;
    readonly runtime: string;
  };
  readonly ops: readonly OpRow[];
  readonly buffers: readonly PlanBuffer[];
  readonly planSvg: string;
  readonly latency: BoardLatency;
  readonly boards: readonly BoardRow[];
  /** A file planned for another kernel library (inspect's warning), else null. */
  readonly warning: string | null;
}

export interface OptimizeRequest {
  readonly passes: string;
  readonly targetBytes: string;
  readonly spillPercent: string;
  readonly build: Build;
}

export interface PassSummary {
  readonly pass: string;
  readonly applied: boolean;
  readonly peakBytesBefore: number;
  readonly peakBytesAfter: number;
  readonly notes: readonly string[];
}

export interface Optimized {
  readonly flags: string;
  /** Whose arena the passes minimized and before / after compare (optimize's default, tflm). */
  readonly runtime: string;
  readonly passes: readonly PassSummary[];
  readonly before: { readonly peakBytes: number; readonly arenaBytes: number; readonly latencyMs: number };
  readonly after: { readonly peakBytes: number; readonly arenaBytes: number; readonly latencyMs: number };
  /** When the result needs mcusim's own ops: the whole arena on the other runtime, before and after. */
  readonly otherRuntime: { readonly runtime: string; readonly beforeBytes: number; readonly afterBytes: number } | null;
  readonly board: string;
  readonly planSvg: string;
  /** The optimized .tflite (what `mcusim optimize ... -o FILE` writes); null when optimize refuses to write it. */
  readonly bytes: Uint8Array | null;
  /** optimize's reason for writing nothing (a result larger than the original), else null. */
  readonly refused: string | null;
  readonly fileName: string;
  /** The pipeline's verdict on --target-bytes when one was given: met, or the gap (optimize's stderr line). */
  readonly target: string | null;
  readonly customOps: readonly string[];
}

export interface Overlap {
  readonly opIndex: number;
  readonly kind: string;
  readonly inputBytes: number;
  readonly outputBytes: number;
  readonly os: Readonly<Record<string, number>>;
  readonly traceSvg: string | null;
  readonly note: string | null;
}

export type DownloadKind = 'tflm-kernels' | 'c-port' | 'report';

export interface Download {
  readonly fileName: string;
  readonly mime: string;
  readonly bytes: Uint8Array;
  readonly note: string;
}

/** What the engine worker answers, by request kind. */
export interface EngineCalls {
  /** `recorded`: the kernel library (and CPU) the file's plan was made for, when it records one. */
  load: { args: { readonly source: ModelSource }; result: { readonly label: string; readonly recorded: { readonly kernels: string; readonly cpu: string | null } | null } };
  analyze: { args: { readonly build: Build }; result: Analysis };
  latency: { args: { readonly board: string; readonly build: Build }; result: BoardLatency };
  optimize: { args: OptimizeRequest; result: Optimized };
  overlap: { args: { readonly opIndex: number; readonly build: Build }; result: Overlap };
  download: { args: { readonly kind: DownloadKind; readonly build: Build; readonly verification: VerifyReport | null }; result: Download };
}

export type EngineKind = keyof EngineCalls;

export interface EngineRequest<K extends EngineKind = EngineKind> {
  readonly id: number;
  readonly kind: K;
  readonly args: EngineCalls[K]['args'];
}

/** A failure as the CLI prints it: the code, the message, and the CLI's full text. */
export interface PageError {
  readonly code: string;
  readonly message: string;
  readonly text: string;
}

export type EngineResponse =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly error: PageError }
  | { readonly id: number; readonly progress: string };

/** The page's request to a verify worker: both models as the CLI reads them, and the build. */
export interface VerifyJob {
  readonly original: ModelSource;
  readonly optimized: Uint8Array;
  readonly kernels: string;
  readonly cpu: string | null;
}

export type VerifyToWorker =
  | { readonly kind: 'open'; readonly job: VerifyJob }
  | { readonly kind: 'seed'; readonly seed: number }
  | { readonly kind: 'finish'; readonly seeds: number; readonly results: readonly VerifySeedResult[] };

export type VerifyFromWorker =
  | { readonly kind: 'ready' }
  | { readonly kind: 'seed'; readonly result: VerifySeedResult }
  | { readonly kind: 'report'; readonly report: VerifyReport }
  | { readonly kind: 'error'; readonly error: PageError };

/** The part of a worker's global scope the workers use (the web page's tsconfig has the DOM types only). */
export interface WorkerScope<In, Out> {
  postMessage(message: Out, transfer?: Transferable[]): void;
  addEventListener(type: 'message', listener: (e: MessageEvent<In>) => void): void;
}
