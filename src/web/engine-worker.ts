// The engine's module worker: answers the page's requests (protocol.ts) one at a time in arrival
// order with the engine's handlers, posting progress lines while a request runs and every failure
// as the CLI's coded error. Bytes in results go back transferred, not copied.
import { createEngine } from './engine.ts';
import { pageError } from './page-error.ts';
import type { EngineRequest, EngineResponse, WorkerScope } from './protocol.ts';

function transfers(value: unknown): Transferable[] {
  const bytes = (value as { bytes?: unknown } | null)?.bytes;
  return bytes instanceof Uint8Array ? [bytes.buffer] : [];
}

function serve(scope: WorkerScope<EngineRequest, EngineResponse>): void {
  let requestId = -1;
  const engine = createEngine((line) => scope.postMessage({ id: requestId, progress: line }));
  scope.addEventListener('message', (e) => {
    const { id, kind, args } = e.data;
    requestId = id;
    try {
      const handler = engine[kind] as (a: typeof args) => unknown;
      const value = handler(args);
      scope.postMessage({ id, ok: true, value }, transfers(value));
    } catch (err) {
      scope.postMessage({ id, ok: false, error: pageError(err) });
    }
  });
}

serve(self as unknown as WorkerScope<EngineRequest, EngineResponse>);
