// Errors crossing a worker_threads boundary: a worker sends the plain fields of what it threw and
// the parent rebuilds the same coded error class, so the exit code and the stderr line are the
// ones the serial run would print.
import type { ErrorCode, Issue } from '../ir/index.ts';
import { InternalError, KernelError, McusimError, ModelError, PlanError, UsageError, VerificationError } from '../ir/index.ts';

export interface WorkerErrorData {
  readonly name: string;
  readonly code: string | null;
  readonly message: string;
  readonly issues: readonly Issue[] | null;
  readonly stack: string | null;
}

export function toWorkerError(e: unknown): WorkerErrorData {
  const err = e instanceof Error ? e : new Error(String(e));
  return {
    name: err.name,
    code: e instanceof McusimError ? e.code : null,
    message: err.message,
    issues: e instanceof ModelError ? [...e.issues] : null,
    stack: err.stack ?? null,
  };
}

export function fromWorkerError(d: WorkerErrorData): Error {
  const code = (d.code ?? 'E_INTERNAL') as ErrorCode;
  let e: Error;
  switch (d.name) {
    case 'ModelError': e = new ModelError(code, d.message, d.issues ?? undefined); break;
    case 'PlanError': e = new PlanError(code, d.message); break;
    case 'KernelError': e = new KernelError(code, d.message); break;
    case 'VerificationError': e = new VerificationError(code, d.message); break;
    case 'UsageError': e = new UsageError(d.message); break;
    case 'InternalError': e = new InternalError(d.message); break;
    default: e = d.code !== null ? new McusimError(code, d.message) : new Error(d.message);
  }
  if (d.stack !== null) e.stack = d.stack;
  return e;
}
