// A `verify --jobs N` worker thread: started before the models are loaded, it waits for one
// VerifyJob (both models, cloned from the parent), prepares them once (the plan checks and
// whole arenas of its session's header are left to the parent), then claims seeds from the
// shared counter until none are left (or the parent says stop), posting each seed's result;
// whatever it throws is posted once as a WorkerErrorData.
import { parentPort } from 'node:worker_threads';
import { openVerifySession } from '../api/index.ts';
import type { VerifyJob, VerifyWorkerMessage } from './verify-pool.ts';
import { claimSeed } from './verify-pool.ts';
import { toWorkerError } from './worker-errors.ts';

const post = (m: VerifyWorkerMessage): void => parentPort?.postMessage(m);

parentPort?.once('message', (job: VerifyJob) => {
  try {
    const counter = new Int32Array(job.counter);
    const session = openVerifySession(job.original, job.optimized, job.storage);
    for (let seed = claimSeed(counter, job.seeds); seed !== null; seed = claimSeed(counter, job.seeds)) {
      post({ kind: 'seed', result: session.runSeed(seed) });
    }
    post({ kind: 'done' });
  } catch (e) {
    post({ kind: 'error', error: toWorkerError(e) });
  }
  parentPort?.close();
});
