// Resolves a MODEL argument: `zoo:<name>` builds a zoo model, anything else is read as a
// .tflite file. Unreadable files are usage errors; bytes the importer cannot parse are model
// errors even if the importer fails with a raw exception (the API's loadModel guarantees it).
import { readFileSync } from 'node:fs';
import { UsageError, buildZooModel } from '../ir/index.ts';
import type { Model } from '../ir/index.ts';
import { loadModel as parseModel } from '../api/index.ts';
import { checkGraphConstraints } from '../kernels/index.ts';

const ZOO_PREFIX = 'zoo:';

function readReason(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'is a directory';
  if (code === 'EACCES') return 'permission denied';
  return e instanceof Error ? e.message : String(e);
}

export function readInputFile(path: string, what: string): Uint8Array {
  try {
    return readFileSync(path);
  } catch (e) {
    throw new UsageError(`cannot read ${what} '${path}': ${readReason(e)}`);
  }
}

export function loadModel(arg: string): Model {
  if (arg.startsWith(ZOO_PREFIX)) {
    const name = arg.slice(ZOO_PREFIX.length);
    if (name === '') throw new UsageError(`'${arg}' names no zoo model (try 'mcusim zoo list')`);
    return buildZooModel(name);
  }
  return parseModel(readInputFile(arg, 'model'), arg);
}

/**
 * loadModel, refused with `run`'s error (an op without a kernel, a kernel constraint) when `run`
 * would refuse it: for the commands that optimize, cost or report a model, whose later steps would
 * otherwise fail with a less direct error (a pass's "invalid model", an offline plan's overlap).
 */
export function loadRunnableModel(arg: string): Model {
  const model = loadModel(arg);
  checkGraphConstraints(model.graph);
  return model;
}
