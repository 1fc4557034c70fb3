// Reading the recorded real-CMSIS-NN evidence (testdata/real-builds/cmsis-nn/, README there): JSONL
// lines, one-op graphs stored as JSON (constant bytes base64), placements with their initial arena,
// and each run's result (the arena after it, as the one window of bytes that changed).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Graph, Tensor } from '../../../src/ir/index.ts';
import { TESTDATA } from '../../oracle-paths.ts';
import type { Placement } from './real-cases.ts';

export const RECORDED = join(TESTDATA, 'real-builds', 'cmsis-nn');

export const fromB64 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'base64'));

export function readJsonl<T>(file: string): T[] {
  return readFileSync(join(RECORDED, file), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as T);
}

/** A tensor as recorded: the IR's fields, constant bytes in base64. */
export interface TensorJson extends Omit<Tensor, 'data'> { readonly data: string | null }
export interface GraphJson { readonly tensors: readonly TensorJson[]; readonly ops: Graph['ops']; readonly inputs: readonly number[]; readonly outputs: readonly number[] }

export function graphFromJson(g: GraphJson, name: string): Graph {
  const tensors = g.tensors.map((t) => ({ ...t, data: t.data === null ? null : fromB64(t.data) }));
  return { name, tensors, ops: g.ops, inputs: g.inputs, outputs: g.outputs };
}

/** One arena layout of a case: tensor index -> byte offset, its size and its bytes before the run. */
export interface PlacementJson { readonly name: string; readonly offsets: Readonly<Record<string, number>>; readonly arenaBytes: number; readonly init: string }

export function placementFromJson(p: PlacementJson): Placement {
  return { name: p.name, offsets: new Map(Object.entries(p.offsets).map(([t, o]) => [Number(t), o])), arenaBytes: p.arenaBytes, init: fromB64(p.init) };
}

/** A line of cases.jsonl: the op, and what the harness handed CMSIS-NN (the cmsis_nn struct fields). */
export interface CaseJson {
  readonly id: number;
  readonly kind: string;
  readonly graph: GraphJson;
  readonly harness: { readonly params: Readonly<Record<string, number>>; readonly mult: readonly number[]; readonly shift: readonly number[] };
  readonly placements: readonly PlacementJson[];
}

/** One run's result: the kernel's status, the two buffer sizes, [offset, bytes] of the changed window (null: nothing changed). */
export interface RunJson { readonly placement: number; readonly status: number; readonly buffers: readonly [number, number]; readonly changed: readonly [number, string] | null }
/** A line of results-CPU.jsonl. `path` is the code path the spec named at recording time. */
export interface ResultJson { readonly case: number; readonly kind: string; readonly path: string; readonly runs: readonly RunJson[] }

/** The arena after a run: the placement's initial bytes with the changed window written over them. */
export function arenaAfter(p: Placement, r: RunJson): Uint8Array {
  const out = p.init.slice();
  if (r.changed !== null) out.set(fromB64(r.changed[1]), r.changed[0]);
  return out;
}
