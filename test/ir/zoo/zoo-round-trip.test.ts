// Every zoo model survives export -> import with an identical IR, and exports byte-stably.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Model } from '../../../src/ir/index.ts';
import { buildZooModel, exportTflite, importTflite, listZooModels } from '../../../src/ir/index.ts';

/** The model with every byte array replaced by its length and hash (fast deep equality). */
function digest(model: Model): unknown {
  return JSON.parse(
    JSON.stringify(model, (_k, v: unknown) =>
      v instanceof Uint8Array ? { bytes: v.length, sha1: createHash('sha1').update(v).digest('hex') } : v,
    ),
  );
}

describe('zoo models round-trip through .tflite', () => {
  for (const { name } of listZooModels()) {
    it(name, () => {
      const m = buildZooModel(name);
      const bytes = exportTflite(m);
      expect(Buffer.from(exportTflite(m)).equals(Buffer.from(bytes))).toBe(true);
      const back = importTflite(bytes);
      expect(digest(back)).toEqual(digest(m));
      expect(Buffer.from(exportTflite(back)).equals(Buffer.from(bytes))).toBe(true);
    });
  }
});
