// The page's verification (UI thread side): seeds 1..N over module workers (verify-worker.ts), as
// `mcusim verify --jobs` splits them over threads. Each worker opens a session on both models; the
// page hands out one seed at a time to whichever worker is free, counts finished seeds for the
// progress bar and, once all are in, asks one worker to join them into the CLI's report (seed
// order, so the report does not depend on which worker ran what). cancel() ends every worker.
import { PageFailure } from './engine-client.ts';
import type { VerifyFromWorker, VerifyJob, VerifySeedResultData, VerifyToWorker } from './protocol.ts';
import type { VerifyReport } from '../api/index.ts';

export interface VerifyRun {
  readonly done: Promise<VerifyReport>;
  cancel(): void;
}

export class VerifyCancelled extends Error {
  constructor() {
    super('verification cancelled');
  }
}

/** Workers for `seeds` seeds: one per core the browser reports, at most one per seed. */
export function verifyWorkerCount(seeds: number): number {
  return Math.max(1, Math.min(seeds, navigator.hardwareConcurrency || 2));
}

export function startVerify(url: URL, job: VerifyJob, seeds: number, onSeed: (finished: number) => void): VerifyRun {
  const workers = Array.from({ length: verifyWorkerCount(seeds) }, () => new Worker(url, { type: 'module' }));
  const results: VerifySeedResultData[] = [];
  let next = 1;
  let settle: { resolve(r: VerifyReport): void; reject(e: Error): void } | null = null;
  const stop = (): void => {
    for (const w of workers) w.terminate();
  };
  const done = new Promise<VerifyReport>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const fail = (e: Error): void => {
    stop();
    settle?.reject(e);
    settle = null;
  };
  const send = (w: Worker, m: VerifyToWorker): void => w.postMessage(m);
  const feed = (w: Worker): void => {
    if (next <= seeds) send(w, { kind: 'seed', seed: next++ });
  };
  workers.forEach((w, i) => {
    w.addEventListener('message', (e: MessageEvent<VerifyFromWorker>) => {
      const m = e.data;
      switch (m.kind) {
        case 'ready':
          feed(w);
          return;
        case 'seed':
          results.push(m.result);
          onSeed(results.length);
          if (results.length === seeds) send(w, { kind: 'finish', seeds, results });
          else feed(w);
          return;
        case 'report':
          stop();
          settle?.resolve(m.report);
          settle = null;
          return;
        case 'error':
          fail(new PageFailure(m.error));
          return;
      }
    });
    w.addEventListener('error', (e) => fail(new PageFailure({ code: 'E_INTERNAL', message: e.message, text: `E_INTERNAL: verify worker ${i} failed: ${e.message}` })));
    send(w, { kind: 'open', job });
  });
  return { done, cancel: () => fail(new VerifyCancelled()) };
}
