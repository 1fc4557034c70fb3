// A `verify --jobs N` worker thread: started before the models are loaded, it waits for one
// VerifyJob (both models, cloned from the parent, and the port the parent's lowered and compiled
// kernels come on), prepares them lowering and compiling nothing (it takes each kernel batch as
// it needs it: kernelFeed), then claims items (a seed's traced or reference run, or the report
// header) from the shared counter until none are left (or the parent says stop), posting each
// result; whatever it throws is posted once as a WorkerErrorData.
import { parentPort } from 'node:worker_threads';
import { openVerifySession } from '../api/index.ts';
import type { VerifyJob, VerifyWorkerMessage } from './verify-pool.ts';
import { claimRun, doRun, kernelFeed } from './verify-pool.ts';
import { toWorkerError } from './worker-errors.ts';

const post = (m: VerifyWorkerMessage): void => parentPort?.postMessage(m);

parentPort?.once('message', (job: VerifyJob) => {
  try {
    const counter = new Int32Array(job.counter);
    const session = openVerifySession(job.original, job.optimized, job.storage, kernelFeed(job.kernels, new Int32Array(job.posted), counter));
    for (let run = claimRun(counter, job.seeds); run !== null; run = claimRun(counter, job.seeds)) doRun(session, run, post);
    post({ kind: 'done' });
  } catch (e) {
    post({ kind: 'error', error: toWorkerError(e) });
  }
  job.kernels.close();
  parentPort?.close();
});
