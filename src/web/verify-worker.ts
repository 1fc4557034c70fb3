// A verify module worker (the page's `verify --jobs`): opens one verification session on both
// models as `mcusim verify ORIGINAL OPTIMIZED` loads them (zoo:NAME built, files parsed), then runs
// the seeds the page hands it one at a time (VerifySession.runSeed), and, when asked, joins every
// seed's result into the report (the header's plan checks and whole arenas, combineVerifyResults).
import { combineVerifyResults, loadModel, openVerifySession, zooModel } from '../api/index.ts';
import type { VerifySession } from '../api/index.ts';
import type { Model } from '../ir/index.ts';
import { InternalError } from '../ir/index.ts';
import { DEFAULT_TFLM_ARCH } from '../sim/index.ts';
import { pageError } from './page-error.ts';
import type { ModelSource, VerifyFromWorker, VerifyJob, VerifyToWorker, WorkerScope } from './protocol.ts';

function modelOf(source: ModelSource): Model {
  return source.kind === 'zoo' ? zooModel(source.name) : loadModel(source.bytes, source.name);
}

function open(job: VerifyJob): VerifySession {
  const storage = { arch: DEFAULT_TFLM_ARCH, kernels: job.kernels === 'cmsis-nn' ? 'cmsis-nn' as const : 'reference' as const, ...(job.cpu === null ? {} : { cpu: job.cpu }) };
  return openVerifySession(modelOf(job.original), loadModel(job.optimized, 'optimized.tflite'), storage);
}

function serve(scope: WorkerScope<VerifyToWorker, VerifyFromWorker>): void {
  let session: VerifySession | null = null;
  const opened = (): VerifySession => {
    if (session === null) throw new InternalError('verify worker: no session open');
    return session;
  };
  scope.addEventListener('message', (e) => {
    const m = e.data;
    try {
      switch (m.kind) {
        case 'open':
          session = open(m.job);
          scope.postMessage({ kind: 'ready' });
          return;
        case 'seed':
          scope.postMessage({ kind: 'seed', result: opened().runSeed(m.seed) });
          return;
        case 'finish':
          scope.postMessage({ kind: 'report', report: combineVerifyResults(m.seeds, opened().header(), m.results) });
          return;
      }
    } catch (err) {
      scope.postMessage({ kind: 'error', error: pageError(err) });
    }
  });
}

serve(self as unknown as WorkerScope<VerifyToWorker, VerifyFromWorker>);
