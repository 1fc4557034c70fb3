// Does a model fit a board (issue 12 item 5)? The arena (plus any RAM the runtime keeps outside
// it) must fit the one RAM region the arena goes in, the largest; the constant tensors (weights)
// must fit the internal flash. Margins are reported either way (negative = missing bytes).
import type { Graph } from '../../ir/index.ts';
import { byteSize, UsageError } from '../../ir/index.ts';
import type { TargetProfile } from '../targets/index.ts';
import type { ArenaReport } from './whole-arena.ts';

export interface BoardFit {
  readonly board: string;
  /** The arena (and any RAM outside it) fits the arena region. */
  readonly fits: boolean;
  /** The region the arena goes in, and its size. */
  readonly region: string;
  readonly ramBytes: number;
  /** the arena to declare (declareBytes) + outsideArenaBytes. */
  readonly neededBytes: number;
  readonly marginBytes: number;
  readonly flashFits: boolean;
  readonly flashBytes: number;
  /** Bytes of the model's constant tensors (weights, biases, shapes). */
  readonly weightsBytes: number;
  readonly flashMarginBytes: number;
}

export function weightsBytes(graph: Graph): number {
  return graph.tensors.reduce((s, t) => s + (t.data === null ? 0 : byteSize(t.dtype, t.shape)), 0);
}

export function boardFit(graph: Graph, arena: ArenaReport, target: TargetProfile): BoardFit {
  const region = target.ramRegions.find((r) => r.name === target.arenaRegion);
  if (region === undefined) throw new UsageError(`target '${target.name}': arenaRegion '${target.arenaRegion}' names none of its ramRegions`);
  const neededBytes = Math.max(arena.totalBytes, arena.declareBytes) + arena.outsideArenaBytes;
  const weights = weightsBytes(graph);
  const marginBytes = region.sizeBytes - neededBytes;
  const flashMarginBytes = target.flashBytes - weights;
  return {
    board: target.name,
    fits: marginBytes >= 0,
    region: region.name,
    ramBytes: region.sizeBytes,
    neededBytes,
    marginBytes,
    flashFits: flashMarginBytes >= 0,
    flashBytes: target.flashBytes,
    weightsBytes: weights,
    flashMarginBytes,
  };
}
