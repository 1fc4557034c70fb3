// Seeded random graph inputs, shared by the planned runner and trace-based safe overlap (both in
// src/optimizer) and by tests and benches: one seed gives the same bytes everywhere.
import seedrandom from 'seedrandom';
import type { Graph } from '../ir/index.ts';
import { InternalError, byteSize } from '../ir/index.ts';

/**
 * Seeded random bytes for every graph input, in input order, from one `seedrandom(String(seed))`
 * stream (ARC4): integer dtypes get `rng.int32() & 0xff` per byte; float32 inputs get
 * `Math.fround(rng() * 2 - 1)` per element (uniform in [-1, 1), never NaN).
 */
export function randomInputs(graph: Graph, seed: number | string): Uint8Array[] {
  const rng = seedrandom(String(seed));
  return graph.inputs.map((t) => {
    const tensor = graph.tensors[t];
    if (tensor === undefined) throw new InternalError(`graph input names missing tensor ${t}`);
    const bytes = new Uint8Array(byteSize(tensor.dtype, tensor.shape));
    if (tensor.dtype === 'float32') {
      const f = new Float32Array(bytes.buffer);
      for (let i = 0; i < f.length; i++) f[i] = Math.fround(rng() * 2 - 1);
    } else {
      for (let i = 0; i < bytes.length; i++) bytes[i] = rng.int32() & 0xff;
    }
    return bytes;
  });
}
