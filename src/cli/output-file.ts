// Writing a file the user named (an optimized model, a picture, a trace, a generated project file):
// a failure is the user's path, so it becomes a UsageError naming the path (exit 2), never a raw
// Node error. The one place CLI commands write through.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError } from '../ir/index.ts';

/** Writes `data` to `path`; `makeDirs` creates the missing parent folders first. */
export function writeOutputFile(path: string, data: string | Uint8Array, options: { readonly makeDirs?: boolean } = {}): void {
  try {
    if (options.makeDirs === true) mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, data);
  } catch (e) {
    throw new UsageError(`cannot write '${path}': ${e instanceof Error ? e.message : String(e)}`);
  }
}
