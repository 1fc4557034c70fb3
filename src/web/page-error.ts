// A failure as the page shows it: the same code, message and text `mcusim` prints on stderr for it
// (src/cli/errors.ts formatError: every model issue listed, anything not an McusimError is an
// E_INTERNAL bug). Runs in the workers, which post the result to the page.
import { McusimError, ModelError, describeIssue } from '../ir/index.ts';
import type { PageError } from './protocol.ts';

export function pageError(e: unknown): PageError {
  if (e instanceof ModelError && e.issues.length > 1) {
    const lines = e.issues.map((i) => `  [${i.code}] ${describeIssue(i)}`);
    return { code: e.code, message: e.message, text: `${e.code}: ${e.issues.length} problems in model:\n${lines.join('\n')}` };
  }
  if (e instanceof McusimError) return { code: e.code, message: e.message, text: `${e.code}: ${e.message}` };
  const message = e instanceof Error ? e.message : String(e);
  return { code: 'E_INTERNAL', message, text: `E_INTERNAL: ${message} (a bug in mcusim)` };
}
