// An error thrown in a verify worker is rebuilt in the parent as the same coded class, so the
// exit code and stderr line match the serial run.
import { describe, expect, it } from 'vitest';
import { exitCodeFor, formatError } from '../../src/cli/errors.ts';
import { fromWorkerError, toWorkerError } from '../../src/cli/worker-errors.ts';
import { InternalError, KernelError, ModelError, PlanError, UsageError, VerificationError } from '../../src/ir/index.ts';

describe('worker errors round trip', () => {
  const cases: readonly Error[] = [
    new ModelError('E_MODEL_UNSUPPORTED_OP', 'two', [{ code: 'E_MODEL_UNSUPPORTED_OP', message: 'a' }, { code: 'E_MODEL_INVALID', message: 'b' }]),
    new PlanError('E_PLAN_OVERLAP', 'overlap'),
    new KernelError('E_KERNEL_CONSTRAINT', 'check'),
    new VerificationError('E_VERIFY_MISMATCH', 'differs'),
    new UsageError('bad'),
    new InternalError('bug'),
    new TypeError('raw'),
  ];
  for (const e of cases) {
    it(e.name, () => {
      const back = fromWorkerError(structuredClone(toWorkerError(e)));
      expect(back.constructor).toBe(e instanceof TypeError ? Error : e.constructor);
      expect(exitCodeFor(back)).toBe(exitCodeFor(e));
      expect(formatError(back)).toBe(formatError(e));
    });
  }
});
