// A worker thread of the CLI's evaluator pool (worker-pool.ts): for each batch posted on its port it
// joins unless the batch is closed, claims items from the batch's shared counter, evaluates each
// with the optimizer's evaluateCandidate (the pure function of the batch's kind) and posts the
// result; a failure is posted once and stops the batch for every thread. Keeps the last context.
// Counts itself started once it listens (or has posted why it could not start).
import { workerData } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import * as optimizer from '../optimizer/index.ts';
import type { PoolBatch, PoolReply, PoolWorkerData } from './worker-pool.ts';
import { DONE, JOINED, STOP, claimIndex } from './worker-pool.ts';
import { toWorkerError } from './worker-errors.ts';

type Evaluate = (kind: string, context: unknown, item: unknown) => unknown;

const data = workerData as PoolWorkerData;
const port: MessagePort = data.port;
const started = new Int32Array(data.startup);
let evaluate: Evaluate = optimizer.evaluateCandidate;
let context: { readonly id: number; readonly value: unknown } | null = null;

function runBatch(b: PoolBatch): void {
  if (b.context !== undefined || context?.id !== b.contextId) context = { id: b.contextId, value: b.context };
  const counter = new Int32Array(b.counter);
  if (Atomics.load(counter, STOP) !== 0) return;
  Atomics.add(counter, JOINED, 1);
  Atomics.notify(counter, JOINED);
  try {
    for (let i = claimIndex(counter, b.items.length); i !== null; i = claimIndex(counter, b.items.length)) {
      let reply: PoolReply;
      try {
        reply = { batch: b.batch, kind: 'result', index: i, result: evaluate(b.kind, context.value, b.items[i]) };
      } catch (e) {
        Atomics.store(counter, STOP, 1);
        reply = { batch: b.batch, kind: 'error', index: i, error: toWorkerError(e) };
      }
      port.postMessage(reply);
    }
  } finally {
    Atomics.add(counter, DONE, 1);
    Atomics.notify(counter, DONE);
  }
}

/** Loads the evaluator, then listens; counts itself started either way. (Not top-level await: the
 * CLI's bundle of this thread is CommonJS, scripts/build.mjs.) */
async function start(): Promise<void> {
  try {
    if (data.evaluatorModule !== null) evaluate = ((await import(data.evaluatorModule)) as { evaluateCandidate: Evaluate }).evaluateCandidate;
    port.on('message', runBatch);
  } catch (e) {
    const reply: PoolReply = { batch: -1, kind: 'startup-error', index: -1, error: toWorkerError(e) };
    port.postMessage(reply);
  } finally {
    Atomics.add(started, 0, 1);
    Atomics.notify(started, 0);
  }
}

void start();
