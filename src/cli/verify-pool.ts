// `verify --jobs N`: seeds 1..S split over this thread and N-1 worker threads (dist/cli/
// verify-worker.js), each with both models prepared once. The workers are started first
// (startVerifyThreads), so they load their code while this thread loads the models; the loaded
// models then go to them as structured clones (a zoo model is built once, here) before this thread
// opens its session, and the session's kernels (lowered and compiled here, once: a worker lowers
// nothing) follow on a port of their own in batches (kernelFeed): the fast code as soon as the
// session is open, then the optimized model's traced code. A worker plans and prepares the first
// model while this thread lowers, and waits for a batch only when it needs a kernel. The work is
// 2S runs and the report header, claimed one at a time from a shared counter (verifyRunAt): each
// seed's traced run of the optimized model (the bulk of the work), then, in blocks, the original's
// short reference runs, which fill the gaps while the threads' last traced runs end at different
// times; the header (plan checks, whole arenas) just before the last block's reference runs, so it
// is not left to one thread at the end. This thread joins each seed's two runs (joinSeedRuns); the
// library combines the seeds in seed order (combineVerifyResults), so the report equals the serial
// one. The first failure anywhere stops every thread and is thrown once, rebuilt as the same coded
// error. Jobs, worker URL and the claim counter: worker-pool.ts.
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import type { VerifyHeader, VerifyKernelFeed, VerifyKernels, VerifyReferencePart, VerifyReport, VerifySeedResult, VerifySession, VerifyStorageOptions, VerifyTracedPart } from '../api/index.ts';
import { checkSeeds, combineVerifyResults, joinSeedRuns, openVerifySession, verifyModels } from '../api/index.ts';
import type { Model } from '../ir/index.ts';
import { InternalError } from '../ir/index.ts';
import type { WorkerErrorData } from './worker-errors.ts';
import { fromWorkerError, toWorkerError } from './worker-errors.ts';
import { claimIndex, newCounter, STOP, workerUrl } from './worker-pool.ts';

/** What a verify worker is sent once the models are loaded. */
export interface VerifyJob {
  readonly original: Model;
  readonly optimized: Model;
  readonly storage: VerifyStorageOptions;
  /** Where the parent session's kernels arrive (transferred): VerifyKernels batches, then null. */
  readonly kernels: MessagePort;
  /** Int32 [batches posted to `kernels`]: what a worker waits on for the next one. */
  readonly posted: SharedArrayBuffer;
  readonly seeds: number;
  /** Int32 [next seed - 1, stop flag] (worker-pool.ts's counter). */
  readonly counter: SharedArrayBuffer;
}

/** A worker's side of the kernel batches: the next one off `port`, waiting (Atomics.wait) until
 * the parent has posted it; throws once the parent has stopped the verification. */
export function kernelFeed(port: MessagePort, posted: Int32Array, counter: Int32Array): VerifyKernelFeed {
  let taken = 0;
  return () => {
    for (;;) {
      const m = receiveMessageOnPort(port);
      if (m !== undefined) {
        taken++;
        return m.message as VerifyKernels | null;
      }
      if (Atomics.load(counter, STOP) !== 0) throw new InternalError('verify: stopped while waiting for kernels');
      // A post lands in the port before the count goes up; the timeout only bounds a missed wake-up.
      Atomics.wait(posted, 0, taken, 250);
    }
  };
}

export type VerifyWorkerMessage =
  | { readonly kind: 'reference'; readonly part: VerifyReferencePart }
  | { readonly kind: 'traced'; readonly part: VerifyTracedPart }
  | { readonly kind: 'header'; readonly header: VerifyHeader }
  | { readonly kind: 'done' }
  | { readonly kind: 'error'; readonly error: WorkerErrorData };

/** One item of a verification's work: seed `seed`'s traced run of the optimized model or its
 * reference run, or the report header (VerifySession.header). */
export type VerifyRun =
  | { readonly kind: 'traced'; readonly seed: number }
  | { readonly kind: 'reference'; readonly seed: number }
  | { readonly kind: 'header' };

/**
 * Seeds per block of the run order: a block's traced runs, then its reference runs. The reference
 * runs (a fraction of a traced run each) at the end of the last block even out when the threads
 * finish; blocks bound the outputs held until a seed's two runs are joined.
 */
export const VERIFY_BLOCK_SEEDS = 64;

/** Items of a verification of `seeds` seeds: two runs per seed and the header. */
export const verifyItems = (seeds: number): number => 2 * seeds + 1;

/** Item `index` (0-based, of verifyItems(seeds)) in claim order. */
export function verifyRunAt(index: number, seeds: number): VerifyRun {
  const lastFirst = Math.floor((seeds - 1) / VERIFY_BLOCK_SEEDS) * VERIFY_BLOCK_SEEDS;
  const header = 2 * lastFirst + (seeds - lastFirst);
  if (index === header) return { kind: 'header' };
  const run = index < header ? index : index - 1;
  const first = Math.floor(run / (2 * VERIFY_BLOCK_SEEDS)) * VERIFY_BLOCK_SEEDS;
  const inBlock = Math.min(VERIFY_BLOCK_SEEDS, seeds - first);
  const j = run - 2 * first;
  return j < inBlock ? { kind: 'traced', seed: first + j + 1 } : { kind: 'reference', seed: first + j - inBlock + 1 };
}

/** The next unclaimed item, or null when all are claimed or a thread has failed. */
export function claimRun(counter: Int32Array, seeds: number): VerifyRun | null {
  const i = claimIndex(counter, verifyItems(seeds));
  return i === null ? null : verifyRunAt(i, seeds);
}

/** Do one item on `session` and hand its result to `post`. */
export function doRun(session: VerifySession, run: VerifyRun, post: (m: VerifyWorkerMessage) => void): void {
  switch (run.kind) {
    case 'traced':
      post({ kind: 'traced', part: session.runTraced(run.seed) });
      return;
    case 'reference':
      post({ kind: 'reference', part: session.runReference(run.seed) });
      return;
    case 'header':
      post({ kind: 'header', header: session.header() });
      return;
  }
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
 * `onSeed(n)` after each finished seed (one thread) or each seed's finished traced run (n so far,
 * in any order; the short reference runs come last).
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
    const results: VerifySeedResult[] = [];
    const references = new Map<number, VerifyReferencePart>();
    const traced = new Map<number, VerifyTracedPart>();
    let header: VerifyHeader | null = null;
    let tracedRuns = 0;
    let failure: Error | null = null;
    const posted = new Int32Array(new SharedArrayBuffer(4));
    const ports = workers.map(() => new MessageChannel());
    const fail = (e: Error): void => {
      failure ??= e;
      Atomics.store(counter, STOP, 1);
      Atomics.notify(posted, 0);
    };
    const send = (k: VerifyKernels | null): void => {
      for (const p of ports) p.port1.postMessage(k);
      Atomics.add(posted, 0, 1);
      Atomics.notify(posted, 0);
    };
    // A seed is joined once both its runs are in; progress counts traced runs, the bulk of a seed's work.
    const join = (seed: number): void => {
      const r = references.get(seed);
      const t = traced.get(seed);
      if (r === undefined || t === undefined) return;
      references.delete(seed);
      traced.delete(seed);
      results.push(joinSeedRuns(original, r, t));
    };
    const take = (m: VerifyWorkerMessage): void => {
      if (m.kind === 'header') header = m.header;
      else if (m.kind === 'reference') {
        references.set(m.part.seed, m.part);
        join(m.part.seed);
      } else if (m.kind === 'traced') {
        traced.set(m.part.seed, m.part);
        onSeed(++tracedRuns);
        join(m.part.seed);
      }
    };
    const start = (w: Worker, job: VerifyJob): Promise<void> => new Promise<void>((resolve) => {
      let done = false;
      w.on('message', (m: VerifyWorkerMessage) => {
        take(m);
        if (m.kind === 'error') fail(fromWorkerError(m.error));
        if (m.kind === 'done' || m.kind === 'error') {
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
      w.postMessage(job, [job.kernels]);
    });
    try {
      const finished = workers.map((w, i) => start(w, {
        original, optimized, storage, kernels: (ports[i] as MessageChannel).port2, posted: posted.buffer as SharedArrayBuffer, seeds,
        counter: counter.buffer as SharedArrayBuffer,
      }));
      // The workers take this session's kernels instead of lowering their own.
      const session = openVerifySession(original, optimized, storage);
      send(session.kernels());
      send(session.kernels({ traced: true }));
      send(null);
      for (let run = claimRun(counter, seeds); run !== null; run = claimRun(counter, seeds)) {
        doRun(session, run, take);
        await yieldToEvents();
      }
      await Promise.all(finished);
      if (failure !== null || header === null) throw failure ?? new InternalError('verify: no header');
      return combineVerifyResults(seeds, header, results);
    } catch (e) {
      fail(e instanceof Error ? e : fromWorkerError(toWorkerError(e)));
      throw failure ?? e;
    } finally {
      for (const p of ports) p.port1.close();
      await close();
    }
  };
  return { run, close };
}
