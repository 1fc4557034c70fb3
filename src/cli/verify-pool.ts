// `verify --jobs N`: seeds 1..S split over this thread and N-1 worker threads (dist/cli/
// verify-worker.js), each with both models prepared once. Workers get the loaded models (structured
// clones: a zoo model is built once, in this thread, not again per worker). Seeds are claimed one at a time from a
// shared counter; results are combined in seed order by the library (combineVerifyResults), so
// the report equals the serial one. The first failure anywhere stops every thread and is thrown
// once, rebuilt as the same coded error. Jobs, worker URL and the claim counter: worker-pool.ts.
import { Worker } from 'node:worker_threads';
import type { VerifyReport, VerifySeedResult, VerifyStorageOptions } from '../api/index.ts';
import { checkSeeds, combineVerifyResults, openVerifySession, verifyModels } from '../api/index.ts';
import type { Model } from '../ir/index.ts';
import { InternalError } from '../ir/index.ts';
import type { WorkerErrorData } from './worker-errors.ts';
import { fromWorkerError, toWorkerError } from './worker-errors.ts';
import { claimIndex, newCounter, workerUrl } from './worker-pool.ts';

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

/**
 * verifyModels with up to `jobs` threads; `onSeed(n)` after each finished seed (n = seeds finished
 * so far, in any order).
 */
export async function verifyWithJobs(original: Model, optimized: Model, seeds: number, storage: VerifyStorageOptions, jobs: number, onSeed: (finished: number) => void = () => undefined): Promise<VerifyReport> {
  checkSeeds(seeds);
  const threads = Math.min(jobs, seeds);
  if (threads <= 1) return verifyModels(original, optimized, seeds, storage, onSeed);
  const counter = newCounter();
  const job: VerifyJob = { original, optimized, storage, seeds, counter: counter.buffer as SharedArrayBuffer };
  const results: VerifySeedResult[] = [];
  let failure: Error | null = null;
  const fail = (e: Error): void => {
    failure ??= e;
    Atomics.store(counter, 1, 1);
  };
  const workers = Array.from({ length: threads - 1 }, () => new Worker(workerUrl('verify-worker.js'), { workerData: job }));
  const finished = workers.map((w) => new Promise<void>((resolve) => {
    let done = false;
    w.on('message', (m: VerifyWorkerMessage) => {
      if (m.kind === 'seed') {
        results.push(m.result);
        onSeed(results.length);
      }
      else if (m.kind === 'error') fail(fromWorkerError(m.error));
      if (m.kind !== 'seed') done = true;
    });
    w.on('error', (e) => fail(e instanceof Error ? e : new Error(String(e))));
    w.on('exit', (code) => {
      if (!done && code !== 0) fail(new InternalError(`verify worker exited with code ${code}`));
      resolve();
    });
  }));
  try {
    const session = openVerifySession(original, optimized, storage);
    for (let seed = claimSeed(counter, seeds); seed !== null; seed = claimSeed(counter, seeds)) {
      results.push(session.runSeed(seed));
      onSeed(results.length);
      await yieldToEvents();
    }
    await Promise.all(finished);
    if (failure !== null) throw failure;
    return combineVerifyResults(seeds, session.header, results);
  } catch (e) {
    fail(e instanceof Error ? e : fromWorkerError(toWorkerError(e)));
    await Promise.all(workers.map((w) => w.terminate()));
    throw failure ?? e;
  }
}
