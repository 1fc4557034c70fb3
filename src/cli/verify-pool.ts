// `verify --jobs N`: seeds 1..S split over this thread and N-1 worker threads (dist/cli/
// verify-worker.js), each with both models prepared once. The workers are started first
// (startVerifyThreads), so they load their code while this thread loads the models; the loaded
// models then go to them as structured clones (a zoo model is built once, here). Seeds are claimed
// one at a time from a shared counter; results are combined in seed order by the library
// (combineVerifyResults), so the report equals the serial one. The first failure anywhere stops
// every thread and is thrown once, rebuilt as the same coded error. Jobs, worker URL and the claim
// counter: worker-pool.ts.
import { Worker } from 'node:worker_threads';
import type { VerifyReport, VerifySeedResult, VerifyStorageOptions } from '../api/index.ts';
import { checkSeeds, combineVerifyResults, openVerifySession, verifyModels } from '../api/index.ts';
import type { Model } from '../ir/index.ts';
import { InternalError } from '../ir/index.ts';
import type { WorkerErrorData } from './worker-errors.ts';
import { fromWorkerError, toWorkerError } from './worker-errors.ts';
import { claimIndex, newCounter, workerUrl } from './worker-pool.ts';

/** What a verify worker is sent once the models are loaded. */
export interface VerifyJob {
  readonly original: Model;
  readonly optimized: Model;
  readonly storage: VerifyStorageOptions;
  readonly seeds: number;
  /** Int32 [next seed - 1, stop flag] (worker-pool.ts's counter). */
  readonly counter: SharedArrayBuffer;
}

export type VerifyWorkerMessage =
  | { readonly kind: 'seed'; readonly result: VerifySeedResult }
  | { readonly kind: 'done' }
  | { readonly kind: 'error'; readonly error: WorkerErrorData };

/** The next unclaimed seed (1-based), or null when all are claimed or a thread has failed. */
export function claimSeed(counter: Int32Array, seeds: number): number | null {
  const i = claimIndex(counter, seeds);
  return i === null ? null : i + 1;
}

export { defaultJobs, parseJobs } from './worker-pool.ts';

const yieldToEvents = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Threads for one verification: `run` it once, or `close` it unused (e.g. after a usage error). */
export interface VerifyThreads {
  run(original: Model, optimized: Model, storage: VerifyStorageOptions, onSeed?: (finished: number) => void): Promise<VerifyReport>;
  close(): Promise<void>;
}

/**
 * Start the worker threads of a verification of `seeds` seeds with up to `jobs` threads (none when
 * one thread does): they load their code while the caller loads the models. `run` is verifyModels;
 * `onSeed(n)` after each finished seed (n = seeds finished so far, in any order).
 */
export function startVerifyThreads(jobs: number, seeds: number): VerifyThreads {
  checkSeeds(seeds);
  const threads = Math.min(jobs, seeds);
  // A worker that fails before `run` (e.g. its code does not load) is reported by `run`.
  let early: Error | null = null;
  const workers = Array.from({ length: Math.max(0, threads - 1) }, () => new Worker(workerUrl('verify-worker.js')).on('error', (e) => {
    early ??= e instanceof Error ? e : new Error(String(e));
  }));
  const close = async (): Promise<void> => {
    await Promise.all(workers.map((w) => w.terminate()));
  };
  const run = async (original: Model, optimized: Model, storage: VerifyStorageOptions, onSeed: (finished: number) => void = () => undefined): Promise<VerifyReport> => {
    if (workers.length === 0) return verifyModels(original, optimized, seeds, storage, onSeed);
    if (early !== null) {
      await close();
      throw early;
    }
    const counter = newCounter();
    const job: VerifyJob = { original, optimized, storage, seeds, counter: counter.buffer as SharedArrayBuffer };
    const results: VerifySeedResult[] = [];
    let failure: Error | null = null;
    const fail = (e: Error): void => {
      failure ??= e;
      Atomics.store(counter, 1, 1);
    };
    const finished = workers.map((w) => new Promise<void>((resolve) => {
      let done = false;
      w.on('message', (m: VerifyWorkerMessage) => {
        if (m.kind === 'seed') {
          results.push(m.result);
          onSeed(results.length);
        } else if (m.kind === 'error') fail(fromWorkerError(m.error));
        if (m.kind !== 'seed') {
          done = true;
          resolve();
        }
      });
      w.on('error', (e) => {
        fail(e instanceof Error ? e : new Error(String(e)));
        resolve();
      });
      w.on('exit', (code) => {
        if (!done) fail(new InternalError(`verify worker exited with code ${code} before it finished`));
        resolve();
      });
      w.postMessage(job);
    }));
    try {
      const session = openVerifySession(original, optimized, storage);
      for (let seed = claimSeed(counter, seeds); seed !== null; seed = claimSeed(counter, seeds)) {
        results.push(session.runSeed(seed));
        onSeed(results.length);
        await yieldToEvents();
      }
      // The plan checks and whole arenas, while the workers finish their last seeds.
      const header = failure === null ? session.header() : null;
      await Promise.all(finished);
      if (failure !== null || header === null) throw failure ?? new InternalError('verify: no header');
      return combineVerifyResults(seeds, header, results);
    } catch (e) {
      fail(e instanceof Error ? e : fromWorkerError(toWorkerError(e)));
      throw failure ?? e;
    } finally {
      await close();
    }
  };
  return { run, close };
}
