// Models in and out of the public API: TFLite bytes -> Model (a parse failure of hostile bytes is
// always a coded ModelError, never a raw exception), the seeded zoo, Model -> TFLite bytes. No
// file access here: callers read files themselves (`loadModel(await readFile(path))`).
import { McusimError, ModelError, buildZooModel, exportTflite, importTflite, listZooModels } from '../ir/index.ts';
import type { Model, ZooModelInfo } from '../ir/index.ts';

/** Parse and validate an int8 .tflite flatbuffer; `name` only labels the error message. */
export function loadModel(bytes: Uint8Array, name = 'model'): Model {
  try {
    return importTflite(bytes);
  } catch (e) {
    if (e instanceof McusimError) throw e;
    const message = e instanceof Error ? e.message : String(e);
    throw new ModelError('E_MODEL_CORRUPT', `'${name}' is not a readable TFLite model (${message})`);
  }
}

/** A model of the built-in seeded zoo (see `zooModels()`); the same name gives the same bytes. */
export function zooModel(name: string): Model {
  return buildZooModel(name);
}

/** The zoo's names and one-line descriptions. */
export function zooModels(): ZooModelInfo[] {
  return listZooModels();
}

/** The model as .tflite bytes (an optimized model carries its plan as OfflineMemoryAllocation). */
export function saveModel(model: Model): Uint8Array {
  return exportTflite(model);
}
