// The TinySeg optimizer pass (paper §3-4, Algorithm 1): (1) scratch tensor quantization (§5.3),
// (2) tensor spilling, iterated: cold ranges (Algorithm 2), victim = longest cold range among the
// tensors live at the peak, optional partial spilling sized from the target reduction, Spill +
// Fetching with the following Concatenation merged into the Fetching (Algorithm 3), kept only
// when the TFLM-greedy peak drops, until `targetBytes` is met; (3) fused fetching into Conv2D.
// Step 1 turns int32 scratch into int16 only where proven; mcusim then runs every other
// TransposeConv scratch-free (gather form, same sums; beyond TinySeg, reported per op).
// Flags: scratchQuant=false (or no-scratch-quant) skips step 1; scratchFree=false keeps the paper's
// step alone; spillPercent=P spills P% of the victim's channels (Figure 14 sweep), one victim;
// fusedFetching=false stops after spilling (Table 5's "+ Tensor spilling" row). The result is kept
// only when it lowers the planned part and the whole arena on --arch (guardTotal; the planned part
// alone under objective=planned): compared with the input's current layout, offline plan included.
// A byte target is on the whole arena: the spilled graph runs on mcusim's C runtime, so the planned
// part must reach the target less that runtime's tail. Every peak and total is planned with the
// chosen kernel library (PassOptions.registry: its scratch requests and persistent data).
import type { Graph, Model } from '../../ir/index.ts';
import { byteSize, withScratchModeMetadata } from '../../ir/index.ts';
import { analyzePeak, coldRangeLength, computeColdRanges, greedyPeakBytes, withGraph } from './cold-ranges.ts';
import { fuseFetchingChain, rowWindowBytes } from './fused-fetch.ts';
import { alignedSpillChannels, splitForPartialSpill } from './partial-spill.ts';
import type { OptimizerPass, PassOptions, PassResult } from '../pass.ts';
import { candidateTotals, mcusimTailBytes } from '../arena-totals.ts';
import { guardTotal, objectiveOf } from '../total-guard.ts';
import { DEFAULT_TFLM_ARCH } from '../../sim/index.ts';
import type { ScratchBound } from './scratch-quant.ts';
import { quantizeScratch } from './scratch-quant.ts';
import { spillTensor } from './spill-transform.ts';
import type { KernelRegistry } from '../../kernels/index.ts';

export interface TinySegStep {
  readonly step: 'scratch quantization' | 'spilling' | 'fused fetching';
  readonly peakBytes: number;
  /** Reduction from the original peak, in percent. */
  readonly reductionPct: number;
}

export interface SpillDecision {
  readonly tensor: string;
  readonly slot: number;
  readonly bytes: number;
  readonly channels: number;
  readonly ofChannels: number;
  readonly coldRange: readonly [number, number];
  readonly peakBytes: number;
}

export interface TinySegDetails {
  readonly steps: readonly TinySegStep[];
  readonly scratchBounds: readonly ScratchBound[];
  readonly spills: readonly SpillDecision[];
  readonly fusions: readonly string[];
}

const MAX_ITERATIONS = 16;

function flag(options: PassOptions, ...names: string[]): string | number | boolean | undefined {
  for (const n of names) if (options.flags[n] !== undefined) return options.flags[n];
  return undefined;
}

/** An on-by-default step: off with `name=false` (or kebab) or `noName=true` (or no-kebab). */
function enabled(options: PassOptions, name: string, kebab: string): boolean {
  const no = `no${name[0]?.toUpperCase() ?? ''}${name.slice(1)}`;
  return flag(options, name, kebab) !== false && flag(options, no, `no-${kebab}`) !== true;
}

interface SpillTry {
  readonly graph: Graph;
  readonly peakBytes: number;
  readonly decision: SpillDecision;
}

/** One Algorithm 3 transform on the victim `v`; null when it cannot apply. */
function trySpill(graph: Graph, v: number, start: number, end: number, reductionBytes: number, percent: number | undefined, registry?: KernelRegistry): SpillTry | null {
  const t = graph.tensors[v];
  if (t === undefined) return null;
  const c = t.shape[t.shape.length - 1] ?? 0;
  const bytes = byteSize(t.dtype, t.shape);
  const channels = percent !== undefined ? Math.round((c * percent) / 100) : bytes > reductionBytes ? alignedSpillChannels(t, reductionBytes) : c;
  if (channels <= 0 || c <= 0) return null;
  let g = graph;
  let victim = v;
  let [s, e] = [start, end];
  if (channels < c) {
    const split = splitForPartialSpill(g, v, start, end, channels);
    [g, victim, s, e] = [split.graph, split.part, split.splitOp, split.concatOp];
  }
  const spilled = spillTensor(g, victim, s, e);
  const fused = fuseFetchingChain(spilled.graph, spilled.fetchingOp, ['concatenation']);
  const peakBytes = greedyPeakBytes(fused.graph, registry);
  const spilledBytes = channels === c ? bytes : (bytes / c) * channels;
  return { graph: fused.graph, peakBytes, decision: { tensor: t.name, slot: spilled.slot, bytes: spilledBytes, channels, ofChannels: c, coldRange: [start, end], peakBytes } };
}

/** Algorithm 1 over spilling: returns the final graph and the spills kept. */
function spillLoop(graph: Graph, options: PassOptions, percent: number | undefined, notes: string[]): { graph: Graph; spills: SpillDecision[] } {
  let g = graph;
  const spills: SpillDecision[] = [];
  for (let it = 0; it < MAX_ITERATIONS; it++) {
    const peak = analyzePeak(g, options.registry);
    // The target on the planned part: the target less the tail of the runtime a spilled graph needs.
    const tail = options.targetBytes !== undefined && objectiveOf(options) === 'total' ? mcusimTailBytes(g, options.arch ?? DEFAULT_TFLM_ARCH, options.runtime, options.registry) : 0;
    const plannedTarget = options.targetBytes !== undefined ? options.targetBytes - tail : undefined;
    if (plannedTarget !== undefined && peak.peakBytes <= plannedTarget) break;
    const reduction = plannedTarget !== undefined ? peak.peakBytes - plannedTarget : Number.POSITIVE_INFINITY;
    const cr = computeColdRanges(g);
    const candidates = peak.tensors
      .filter((t) => !g.outputs.includes(t) && coldRangeLength(cr[t] ?? null) >= 2)
      .sort((a, b) => coldRangeLength(cr[b] ?? null) - coldRangeLength(cr[a] ?? null));
    let accepted: SpillTry | null = null;
    for (const v of candidates) {
      const r = cr[v];
      if (r === null || r === undefined) continue;
      const attempt = trySpill(g, v, r.start, r.end, reduction, percent, options.registry);
      if (attempt !== null && attempt.peakBytes < peak.peakBytes) {
        accepted = attempt;
        break;
      }
      if (percent !== undefined) break;
    }
    if (accepted === null) {
      notes.push(spills.length === 0
        ? `spilling cannot reduce the peak (${peak.peakBytes} B at step ${peak.step}): no tensor live there has a cold range whose spilling lowers it`
        : `stopped after ${spills.length} spill(s): spilling another tensor live at the peak does not lower it`);
      break;
    }
    g = accepted.graph;
    spills.push(accepted.decision);
    notes.push(`spilled ${accepted.decision.channels}/${accepted.decision.ofChannels} channels of '${accepted.decision.tensor}' (${accepted.decision.bytes} B, cold ops ${accepted.decision.coldRange[0]}..${accepted.decision.coldRange[1]}) -> peak ${accepted.peakBytes} B`);
    if (percent !== undefined) break;
  }
  return { graph: g, spills };
}

/** Fuse every Fetching into a following Conv2D where that does not raise the peak. */
function fuseConvs(graph: Graph, fusions: string[], registry?: KernelRegistry): Graph {
  let g = graph;
  let peak = greedyPeakBytes(g, registry);
  for (let f = 0; f < g.ops.length; f++) {
    if (g.ops[f]?.kind !== 'fetching') continue;
    const r = fuseFetchingChain(g, f, ['conv2d']);
    if (r.fused.length === 0) continue;
    const p = greedyPeakBytes(r.graph, registry);
    if (p > peak) continue;
    const op = r.graph.ops[f];
    const slot = op?.kind === 'fetchingConv2d' ? `; slot ${op.options.victim} is streamed row by row into a ${rowWindowBytes(r.graph, f)} B row window (MFV-decoded under --compress)` : '';
    fusions.push(`op ${f}: Fetching + Conv2D -> FetchingConv2D (peak ${peak} -> ${p} B)${slot}`);
    [g, peak] = [r.graph, p];
  }
  return g;
}

function scratchNote(b: ScratchBound): string {
  const bound = `|partial sums| <= ${b.boundAbs ?? 'unknown'}`;
  switch (b.mode) {
    case 'int16': return `op ${b.opIndex} transposeConv: scratch int32 -> int16 (${bound}, proven)`;
    case 'int32': return `op ${b.opIndex} transposeConv: scratch kept int32 (${bound} does not prove int16)`;
    case 'scratchFree': return `op ${b.opIndex} transposeConv: int16 not proven (${bound}); runs scratch-free (mcusim gather form, not in TinySeg; -${b.savedBytes} B of scratch)`;
  }
}

export function runTinySeg(model: Model, options: PassOptions): PassResult {
  const notes: string[] = [];
  const reg = options.registry;
  const before = candidateTotals(model, options.arch ?? DEFAULT_TFLM_ARCH, reg, options.runtime);
  // The input's current layout (its offline plan honoured: a DMO plan may already beat greedy).
  const original = before.plannedBytes;
  const pct = (p: number): number => Math.round((1000 * (original - p)) / Math.max(1, original)) / 10;
  const steps: TinySegStep[] = [];
  const sq = enabled(options, 'scratchQuant', 'scratch-quant');
  const scratchFree = enabled(options, 'scratchFree', 'scratch-free');
  const pRaw = flag(options, 'spillPercent', 'spill-percent');
  const percent = pRaw === undefined ? undefined : Math.min(100, Math.max(0, Number(pRaw)));
  let g = model.graph;
  let bounds: readonly ScratchBound[] = [];
  if (sq) {
    const q = quantizeScratch(g, { scratchFree });
    bounds = q.bounds;
    g = q.graph;
    for (const b of bounds) notes.push(scratchNote(b));
  }
  steps.push({ step: 'scratch quantization', peakBytes: greedyPeakBytes(g, reg), reductionPct: pct(greedyPeakBytes(g, reg)) });
  const spilled = percent === 0 ? { graph: g, spills: [] } : spillLoop(g, options, percent, notes);
  g = spilled.graph;
  steps.push({ step: 'spilling', peakBytes: greedyPeakBytes(g, reg), reductionPct: pct(greedyPeakBytes(g, reg)) });
  const fusions: string[] = [];
  if (flag(options, 'fusedFetching', 'fused-fetching') !== false) g = fuseConvs(g, fusions, reg);
  notes.push(...fusions);
  const final = greedyPeakBytes(g, reg);
  steps.push({ step: 'fused fetching', peakBytes: final, reductionPct: pct(final) });
  // Under objective=planned the planned part decides here; otherwise guardTotal compares totals.
  const applied = objectiveOf(options) === 'planned' ? final < original : g !== model.graph;
  const details: TinySegDetails = { steps, scratchBounds: bounds, spills: spilled.spills, fusions };
  options.log?.(steps.map((s) => `${s.step}: ${s.peakBytes} B (-${s.reductionPct}%)`).join('; '));
  const result: PassResult = { model: applied ? withScratchModeMetadata(withGraph(model, g)) : model, report: { pass: 'tinyseg', peakBytesBefore: original, peakBytesAfter: applied ? final : original, applied, notes, details } };
  return guardTotal(model, result, options, { before, requirePlannedDrop: true });
}

export const tinysegPass: OptimizerPass = {
  name: 'tinyseg',
  description: 'TinySeg: scratch quantization, spilling long-cold tensors to storage, fused fetching (LCTES 2024)',
  run: runTinySeg,
};
