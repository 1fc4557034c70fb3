// The one place errors become exit codes and stderr text: 0 ok, 1 a check failed, 2 bad input
// (model, usage, infeasible plan), 70 an internal error. Messages start with the error code
// and list every model issue; stack traces only with MCUSIM_DEBUG=1.
import { McusimError, ModelError, VerificationError, describeIssue } from '../ir/index.ts';
import { EXIT_BAD_INPUT, EXIT_CHECK_FAILED, EXIT_INTERNAL } from './exit-codes.ts';

export { EXIT_BAD_INPUT, EXIT_CHECK_FAILED, EXIT_INTERNAL, EXIT_OK } from './exit-codes.ts';

export function exitCodeFor(e: unknown): number {
  if (e instanceof VerificationError) return EXIT_CHECK_FAILED;
  if (e instanceof McusimError) return e.code === 'E_INTERNAL' ? EXIT_INTERNAL : EXIT_BAD_INPUT;
  return EXIT_INTERNAL;
}

/** The stderr text for `e`, ending in a newline. */
export function formatError(e: unknown, debug = false): string {
  let text: string;
  if (e instanceof ModelError && e.issues.length > 1) {
    const lines = e.issues.map((i) => `  [${i.code}] ${describeIssue(i)}`);
    text = `${e.code}: ${e.issues.length} problems in model:\n${lines.join('\n')}`;
  } else if (e instanceof McusimError) {
    text = `${e.code}: ${e.message}`;
  } else {
    const message = e instanceof Error ? e.message : String(e);
    text = `E_INTERNAL: ${message} (a bug in mcusim; MCUSIM_DEBUG=1 shows where)`;
  }
  if (debug && e instanceof Error && e.stack) text += `\n${e.stack}`;
  return `${text}\n`;
}
