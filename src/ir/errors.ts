// Coded errors for the whole library. The CLI alone maps them to exit codes:
// ModelError / UsageError -> 2 (bad input), VerificationError -> 1 (a check failed),
// PlanError -> 2 (infeasible request), InternalError -> a bug (exit 70).

export type ErrorCode =
  // model loading and validation
  | 'E_MODEL_TRUNCATED'
  | 'E_MODEL_IDENTIFIER'
  | 'E_MODEL_CORRUPT'
  | 'E_MODEL_OFFSET'
  | 'E_MODEL_CYCLE'
  | 'E_MODEL_TENSOR_SIZE'
  | 'E_MODEL_DTYPE'
  | 'E_MODEL_UNSUPPORTED_OP'
  | 'E_MODEL_SHAPE'
  | 'E_MODEL_INVALID'
  | 'E_MODEL_SUBGRAPHS'
  | 'E_MODEL_METADATA'
  // planning
  | 'E_PLAN_OVERLAP'
  | 'E_PLAN_INVALID'
  | 'E_PLAN_INFEASIBLE'
  /** A file's plan, made for one kernel library, breaks with the one asked for (exit 1). */
  | 'E_PLAN_LIBRARY'
  // kernels and simulation
  | 'E_KERNEL_CONSTRAINT'
  | 'E_SIM_ACCESS'
  | 'E_STORAGE'
  // verification
  | 'E_VERIFY_MISMATCH'
  | 'E_VERIFY_TRACE'
  // user input that is not a model
  | 'E_USAGE'
  | 'E_INTERNAL';

/** One problem found in a model, with where it is. Validation collects all of them. */
export interface Issue {
  readonly code: ErrorCode;
  readonly message: string;
  readonly opIndex?: number;
  readonly opKind?: string;
  readonly tensorIndex?: number;
  readonly tensorName?: string;
}

export class McusimError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.code = code;
    this.name = new.target.name;
  }
}

/** A model (file or graph) that cannot be loaded or is inconsistent. Carries every issue found. */
export class ModelError extends McusimError {
  readonly issues: readonly Issue[];
  constructor(code: ErrorCode, message: string, issues?: readonly Issue[]) {
    super(code, message);
    this.issues = issues ?? [{ code, message }];
  }

  static fromIssues(issues: readonly Issue[]): ModelError {
    const first = issues[0];
    if (first === undefined) throw new InternalError('ModelError.fromIssues with no issues');
    const lines = issues.map((i) => `  [${i.code}] ${describeIssue(i)}`);
    const head = issues.length === 1 ? describeIssue(first) : `${issues.length} problems in model:\n${lines.join('\n')}`;
    return new ModelError(first.code, head, issues);
  }
}

export class PlanError extends McusimError {}
export class KernelError extends McusimError {}
export class VerificationError extends McusimError {}
export class UsageError extends McusimError {
  constructor(message: string) {
    super('E_USAGE', message);
  }
}
export class InternalError extends McusimError {
  constructor(message: string) {
    super('E_INTERNAL', message);
  }
}

export function describeIssue(i: Issue): string {
  const where: string[] = [];
  if (i.opIndex !== undefined) where.push(`op ${i.opIndex}${i.opKind ? ` (${i.opKind})` : ''}`);
  if (i.tensorIndex !== undefined) where.push(`tensor ${i.tensorIndex}${i.tensorName ? ` '${i.tensorName}'` : ''}`);
  return where.length ? `${where.join(', ')}: ${i.message}` : i.message;
}
