// Shared test helpers: synthetic graphs, requests and the oracle model list.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DType, Graph, Op, Tensor } from '../../src/ir/index.ts';
import type { BufferRequest } from '../../src/optimizer/index.ts';

import { ORACLE_MODELS, tfliteNames } from '../oracle-paths.ts';
export { ORACLE_MODELS };

export interface OraclePlanEntry {
  readonly buffer: number;
  readonly offset: number;
  readonly size: number;
  readonly first_time_used: number;
  readonly last_time_used: number;
  readonly offline_offset?: number;
  readonly kind: 'tensor' | 'scratch';
  readonly tensor_index?: number;
  readonly scratch_index?: number;
  readonly name?: string;
}

export interface OracleMeta {
  readonly planner_max_memory_bytes: number;
  readonly memory_plan: readonly OraclePlanEntry[];
}

/** TFLM's example models in the oracle folder (none when it is absent). */
export function oracleModelNames(): string[] {
  return tfliteNames(ORACLE_MODELS);
}

export function oracleMeta(name: string): OracleMeta {
  const seed = readdirSync(join(ORACLE_MODELS, name)).filter((d) => d.startsWith('seed')).sort()[0] ?? 'seed1';
  return JSON.parse(readFileSync(join(ORACLE_MODELS, name, seed, 'meta.json'), 'utf8')) as OracleMeta;
}

/** The oracle's planner input, rebuilt from its memory_plan (planner-only checks). */
export function requestsFromMeta(meta: OracleMeta): BufferRequest[] {
  return meta.memory_plan.map((e, id) => ({
    id,
    tensor: e.kind === 'tensor' ? (e.tensor_index ?? null) : null,
    scratchIndex: e.kind === 'scratch' ? (e.scratch_index ?? null) : null,
    opIndex: null,
    name: e.name ?? `scratch ${e.scratch_index ?? ''}`,
    sizeBytes: e.size,
    firstStep: e.first_time_used,
    lastStep: e.last_time_used,
    offlineOffsetBytes: e.offline_offset !== undefined && e.offline_offset >= 0 ? e.offline_offset : null,
  }));
}

export function req(id: number, sizeBytes: number, firstStep: number, lastStep: number, offline: number | null = null): BufferRequest {
  return { id, tensor: id, scratchIndex: null, opIndex: null, name: `b${id}`, sizeBytes, firstStep, lastStep, offlineOffsetBytes: offline };
}

export function act(name: string, shape: number[], dtype: DType = 'int8'): Tensor {
  return { name, dtype, shape, quant: null, data: null, isVariable: false };
}

export function constant(name: string, shape: number[], dtype: DType = 'int8'): Tensor {
  const bytes = shape.reduce((a, b) => a * b, 1) * (dtype === 'int32' ? 4 : 1);
  return { name, dtype, shape, quant: null, data: new Uint8Array(bytes), isVariable: false };
}

export function graphOf(tensors: Tensor[], ops: Op[], inputs: number[], outputs: number[]): Graph {
  return { name: 'g', tensors, ops, inputs, outputs };
}
