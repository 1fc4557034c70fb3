// A `verify --jobs N` worker thread: started before the models are loaded, it waits for one
// VerifyJob (both models, cloned from the parent, with the parent's lowered and compiled fast
// code), prepares them without lowering or compiling anything, takes the traced code (a second
// message, VerifyKernels), then claims items (a seed's traced or reference run, or the report
// header) from the shared counter until none are left (or the parent says stop), posting each
// result; whatever it throws is posted once as a WorkerErrorData.
import { parentPort } from 'node:worker_threads';
import type { VerifyKernels, VerifySession } from '../api/index.ts';
import { openVerifySession } from '../api/index.ts';
import type { VerifyJob, VerifyWorkerMessage } from './verify-pool.ts';
import { claimRun, doRun } from './verify-pool.ts';
import { toWorkerError } from './worker-errors.ts';

const post = (m: VerifyWorkerMessage): void => parentPort?.postMessage(m);

/** Run `step`; post what it throws and close the port. */
function guarded(step: () => void): void {
  try {
    step();
  } catch (e) {
    post({ kind: 'error', error: toWorkerError(e) });
    parentPort?.close();
  }
}

parentPort?.once('message', (job: VerifyJob) =>
  guarded(() => {
    const counter = new Int32Array(job.counter);
    const session: VerifySession = openVerifySession(job.original, job.optimized, job.storage, job.kernels);
    parentPort?.once('message', (traced: VerifyKernels) =>
      guarded(() => {
        session.addKernels(traced);
        for (let run = claimRun(counter, job.seeds); run !== null; run = claimRun(counter, job.seeds)) doRun(session, run, post);
        post({ kind: 'done' });
        parentPort?.close();
      }),
    );
  }),
);
