// Worker threads for the CLI (issue 15), shared by `verify --jobs` and the pooled candidate
// evaluator of `optimize` (tiling, auto) and `sweep`: --jobs parsing, the worker's URL, claiming
// items from a shared counter, and openEvaluatorPool. The evaluator is synchronous, like its
// callers: this thread claims a batch's items and hands the rest to the workers
// (dist/cli/pool-worker.js) when its item times say it is worth their start (worthSharing), then
// waits (Atomics.wait) for those that joined and takes their results with receiveMessageOnPort.
// Results come in item order; the lowest-index failure is thrown once, as the same coded error.
import { availableParallelism } from 'node:os';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import type { CandidateEvaluator, EvalKind } from '../optimizer/index.ts';
import { UsageError } from '../ir/index.ts';
import type { WorkerErrorData } from './worker-errors.ts';
import { fromWorkerError, toWorkerError } from './worker-errors.ts';

export function defaultJobs(): number {
  return availableParallelism();
}

export function parseJobs(text: string | undefined): number {
  if (text === undefined) return defaultJobs();
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1) throw new UsageError(`--jobs must be a positive integer, got '${text}'`);
  return n;
}

/** A compiled worker script of dist/cli (the CLI runs from dist/; run from src, e.g. in tests, it uses the build too). */
export function workerUrl(script: string): URL {
  return import.meta.url.endsWith('.ts') ? new URL(`../../dist/cli/${script}`, import.meta.url) : new URL(`./${script}`, import.meta.url);
}

/** Control words of a claim counter: [items claimed, stop flag, threads joined, threads done]. */
export const NEXT = 0;
export const STOP = 1;
export const JOINED = 2;
export const DONE = 3;

export function newCounter(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4 * 4));
}

/** The next unclaimed item (0-based), or null when all are claimed or a thread has stopped the batch. */
export function claimIndex(counter: Int32Array, count: number): number | null {
  if (Atomics.load(counter, STOP) !== 0) return null;
  const i = Atomics.add(counter, NEXT, 1);
  return i < count ? i : null;
}

/** A batch as posted to a pool worker; `context` only when the worker does not hold it yet. */
export interface PoolBatch {
  readonly batch: number;
  readonly kind: EvalKind;
  readonly contextId: number;
  readonly context?: unknown;
  readonly items: readonly unknown[];
  readonly counter: SharedArrayBuffer;
}

export type PoolReply =
  | { readonly batch: number; readonly kind: 'result'; readonly index: number; readonly result: unknown }
  | { readonly batch: number; readonly kind: 'error'; readonly index: number; readonly error: WorkerErrorData }
  | { readonly batch: -1; readonly kind: 'startup-error'; readonly index: -1; readonly error: WorkerErrorData };

export interface PoolWorkerData {
  readonly port: MessagePort;
  /** Test-only: a module whose `evaluateCandidate` replaces the optimizer's in the workers. */
  readonly evaluatorModule: string | null;
  /** Int32 [workers started]: each worker adds 1 once it can take batches (or has failed to start). */
  readonly startup: SharedArrayBuffer;
}

export interface EvaluatorPool {
  readonly evaluator: CandidateEvaluator;
  /** Worker threads besides this one. */
  readonly workers: number;
  /** Pooled batches so far, their items, and how many of those the workers evaluated. */
  stats(): { readonly batches: number; readonly items: number; readonly workerItems: number };
  /**
   * Starts the workers if not yet and blocks until each can take batches; a worker that failed to
   * start is thrown here (else by the next batch). Optional: batches never wait for a worker.
   */
  waitReady(): void;
  close(): Promise<void>;
}

export interface EvaluatorPoolOptions {
  /** Test-only: see PoolWorkerData.evaluatorModule. */
  readonly evaluatorModule?: URL;
  /** Test-only: hand every batch of two or more items to the workers at once (default: worthSharing),
   * and let them join it before this thread claims an item (up to SHARE_ALWAYS_JOIN_MS), so that a
   * loaded machine cannot leave a test's small batch to this thread alone. */
  readonly shareAlways?: boolean;
}

/** This thread's times of one kind's items in this process: the first (cold code) and the latest. */
export interface ItemTimes {
  readonly count: number;
  readonly firstMs: number;
  readonly latestMs: number;
}

/** shareAlways: the longest this thread waits for the workers to join a batch. */
const SHARE_ALWAYS_JOIN_MS = 10_000;

/** Estimated work (ms) below which a batch stays on this thread even when the workers know its kind. */
export const SHARE_MIN_MS = 20;
/** This thread's time in batches (ms) before the workers may start: a search that short is over
 * before they could help (each takes 0.3-0.4 s of CPU to load the CLI's code, on 2 cores partly
 * this thread's; started with the command, they made searches on small models 0.12-0.28 s longer). */
export const START_AFTER_MS = 1000;
/** Until the workers have evaluated a kind, the rest of a batch goes to them only when it is
 * estimated at this many times their cold start: a worker's first items of a kind run cold code and
 * fill its own caches (its first whole-model latency run compiles the model's kernels), and while it
 * warms up it slows this thread too (V8 compiles on background threads, as many as there are cores). */
export const SHARE_COLD_FACTOR = 6;

/**
 * Whether to hand the `left` unclaimed items of a batch to the workers, from this thread's `times`
 * of the kind (none yet: wait for two). The latest item estimates each of the rest; the first one,
 * less the latest, what a cold start of the kind costs. `warm`: they have evaluated this kind
 * before. Measured: zoo:tiny-unet's sweep (nine latency points of about 80-240 ms after a first of
 * 200-470 ms) ran slower with a worker than without, so it stays on one thread; the large batches
 * of person_detect's tiling search (hundreds of 0.1-10 ms candidates, the first of a few ms) are
 * shared.
 */
export function worthSharing(left: number, times: ItemTimes | undefined, warm: boolean): boolean {
  if (left < 1 || times === undefined || times.count < 2) return false;
  const rest = left * times.latestMs;
  if (warm) return rest >= SHARE_MIN_MS;
  return rest >= Math.max(SHARE_MIN_MS, SHARE_COLD_FACTOR * Math.max(0, times.firstMs - times.latestMs));
}

/** A pooled evaluator over `jobs` threads (this one and jobs - 1 workers, started when a search
 * proves long); close() ends them. */
export function openEvaluatorPool(jobs: number, options: EvaluatorPoolOptions = {}): EvaluatorPool {
  type Thread = { readonly worker: Worker; readonly port: MessagePort; contextId: number };
  let started: Thread[] | null = null;
  const crashes: Error[] = [];
  /** [workers that finished starting (ready or failed)]. */
  const startup = new Int32Array(new SharedArrayBuffer(4));
  // Started by the first batch shared (or waitReady): commands that never search, and short
  // searches, spawn no thread.
  const threadsNow = (): Thread[] => {
    started ??= Array.from({ length: Math.max(0, jobs - 1) }, () => {
      const { port1, port2 } = new MessageChannel();
      const data: PoolWorkerData = { port: port2, evaluatorModule: options.evaluatorModule?.href ?? null, startup: startup.buffer as SharedArrayBuffer };
      const worker = new Worker(workerUrl('pool-worker.js'), { workerData: data, transferList: [port2] });
      worker.unref();
      // Seen when this thread next reaches its event loop (between commands' batches, not inside one).
      worker.on('error', (e) => void crashes.push(e instanceof Error ? e : new Error(String(e))));
      return { worker, port: port1, contextId: -1 };
    });
    return started;
  };
  const stats = { batches: 0, items: 0, workerItems: 0 };
  const contextIds = new WeakMap<object, number>();
  let nextContextId = 0;
  let nextBatch = 0;
  const times = new Map<EvalKind, ItemTimes>();
  /** This thread's time in batches so far. */
  let busyMs = 0;
  /** Kinds handed to the workers so far. */
  const warm = new Set<EvalKind>();
  const evaluator: CandidateEvaluator = {
    map<C, I, R>(kind: EvalKind, fn: (context: C, item: I) => R, context: C, items: readonly I[]): R[] {
      if (jobs <= 1 || items.length <= 1) return items.map((item) => fn(context, item));
      const key = context as object;
      let contextId = contextIds.get(key);
      if (contextId === undefined) {
        contextId = nextContextId++;
        contextIds.set(key, contextId);
      }
      const batch = nextBatch++;
      stats.batches++;
      stats.items += items.length;
      const counter = newCounter();
      let threads: Thread[] = [];
      const share = (): void => {
        threads = threadsNow();
        warm.add(kind);
        for (const t of threads) {
          const message: PoolBatch = { batch, kind, contextId, ...(t.contextId === contextId ? {} : { context }), items, counter: counter.buffer as SharedArrayBuffer };
          t.port.postMessage(message);
          t.contextId = contextId;
        }
      };
      const left = (): number => items.length - Math.min(items.length, Atomics.load(counter, NEXT));
      // Once per batch at most. The workers start with the first batch worth sharing once this
      // thread has spent START_AFTER_MS in batches: a search shorter than that never starts them.
      const shareIfWorth = (): void => {
        if (threads.length > 0 || Atomics.load(counter, STOP) !== 0) return;
        if (options.shareAlways === true) {
          share();
          const until = performance.now() + SHARE_ALWAYS_JOIN_MS;
          for (let j = Atomics.load(counter, JOINED); j < threads.length && Atomics.load(counter, STOP) === 0 && performance.now() < until; j = Atomics.load(counter, JOINED)) {
            Atomics.wait(counter, JOINED, j, until - performance.now());
          }
        } else if ((started !== null || busyMs >= START_AFTER_MS) && worthSharing(left(), times.get(kind), warm.has(kind))) share();
      };
      shareIfWorth();
      const results: R[] = new Array<R>(items.length);
      const failures = new Map<number, Error>();
      for (let i = claimIndex(counter, items.length); i !== null; i = claimIndex(counter, items.length)) {
        const t0 = performance.now();
        try {
          results[i] = fn(context, items[i] as I);
        } catch (e) {
          failures.set(i, e instanceof Error ? e : fromWorkerError(toWorkerError(e)));
          Atomics.store(counter, STOP, 1);
        }
        const ms = performance.now() - t0;
        const had = times.get(kind);
        times.set(kind, { count: (had?.count ?? 0) + 1, firstMs: had?.firstMs ?? ms, latestMs: ms });
        busyMs += ms;
        shareIfWorth();
      }
      // Close the batch: a worker that has not joined yet never will, and finds nothing to claim.
      Atomics.compareExchange(counter, STOP, 0, 2);
      const joined = Atomics.load(counter, JOINED);
      for (let d = Atomics.load(counter, DONE); d < joined; d = Atomics.load(counter, DONE)) Atomics.wait(counter, DONE, d);
      for (const t of threads) {
        for (let m = receiveMessageOnPort(t.port); m !== undefined; m = receiveMessageOnPort(t.port)) {
          const reply = m.message as PoolReply;
          if (reply.kind === 'startup-error') failures.set(-1, fromWorkerError(reply.error));
          if (reply.batch !== batch) continue;
          if (reply.kind === 'result') {
            results[reply.index] = reply.result as R;
            stats.workerItems++;
          }
          else failures.set(reply.index, fromWorkerError(reply.error));
        }
      }
      const crash = crashes[0];
      if (crash !== undefined && failures.size === 0) failures.set(-1, crash);
      if (failures.size > 0) throw failures.get(Math.min(...failures.keys()));
      return results;
    },
  };
  return {
    evaluator,
    workers: Math.max(0, jobs - 1),
    stats: () => ({ ...stats }),
    waitReady: () => {
      const threads = jobs <= 1 ? [] : threadsNow();
      for (let n = Atomics.load(startup, 0); n < threads.length; n = Atomics.load(startup, 0)) Atomics.wait(startup, 0, n);
      for (const t of threads) {
        const m = receiveMessageOnPort(t.port);
        if (m === undefined) continue;
        const reply = m.message as PoolReply;
        if (reply.kind === 'startup-error') throw fromWorkerError(reply.error);
      }
    },
    close: async () => {
      await Promise.all((started ?? []).map(async (t) => {
        t.port.close();
        await t.worker.terminate();
      }));
    },
  };
}
