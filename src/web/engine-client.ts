// The UI thread's side of the engine worker: one request at a time in flight per call, answered in
// order; a failure arrives as the CLI's coded error (PageFailure). Progress lines go to `onProgress`.
import type { EngineCalls, EngineKind, EngineRequest, EngineResponse, PageError } from './protocol.ts';

export class PageFailure extends Error {
  readonly error: PageError;
  constructor(error: PageError) {
    super(error.text);
    this.error = error;
  }
}

interface Pending {
  resolve(value: unknown): void;
  reject(e: Error): void;
}

export class EngineClient {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;

  constructor(url: URL, onProgress: (line: string) => void) {
    this.worker = new Worker(url, { type: 'module' });
    this.worker.addEventListener('message', (e: MessageEvent<EngineResponse>) => {
      const m = e.data;
      if ('progress' in m) {
        onProgress(m.progress);
        return;
      }
      const p = this.pending.get(m.id);
      if (p === undefined) return;
      this.pending.delete(m.id);
      if (m.ok) p.resolve(m.value);
      else p.reject(new PageFailure(m.error));
    });
    this.worker.addEventListener('error', (e) => {
      const failure = new PageFailure({ code: 'E_INTERNAL', message: e.message, text: `E_INTERNAL: the engine worker failed: ${e.message}` });
      for (const p of this.pending.values()) p.reject(failure);
      this.pending.clear();
    });
  }

  call<K extends EngineKind>(kind: K, args: EngineCalls[K]['args'], transfer: Transferable[] = []): Promise<EngineCalls[K]['result']> {
    const id = this.nextId++;
    const request: EngineRequest<K> = { id, kind, args };
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage(request, transfer);
    });
  }
}
