// Latency of one inference on a target board (DESIGN.md §3 "Cost model", TinySeg §5-6, Table 5,
// Figure 13): per-op compute from the kernels' cost counts (latency/compute-cost.ts, one calibration
// scale per kernel library), plus the storage traffic of Spill / Fetching ops run byte-accurately on
// the chosen device (erase / program / read times from the profile, CRC, MFV codec with --compress),
// laid out on a two-core timeline: with asynchronous erase the second core erases a slot's region
// after its last fetch (TinySeg's transfer_in), and a later spill stalls only if that erase still runs.
import type { Graph } from '../ir/index.ts';
import { InternalError } from '../ir/index.ts';
import type { OpCompute } from './latency/compute-cost.ts';
import type { Engine } from './latency/kernel-cost/index.ts';
import { familyConstant } from './latency/kernel-cost/index.ts';
import { interpreterCost, opComputeCycles } from './latency/compute-cost.ts';
import type { ClassCounts } from './latency/instructions/index.ts';
import type { StorageTransfer } from './latency/storage-traffic.ts';
import { storageTransfers } from './latency/storage-traffic.ts';
import { fetchReads, fetchStreaming } from './latency/storage-reads.ts';
import type { IntervalKind, StorageDevice, StorageKind, StorageRegion, TimelineInterval } from './storage/index.ts';
import {
  DualCoreTimeline, alignToUnit, compressMfv, createStorage, decompressMfv, fetchBlock, mfvCodecTimeUs, mfvEncodedBytes,
  sectorsCovering, spillBlock, spillFootprintBytes,
} from './storage/index.ts';
import type { CoreProfile, KernelLibrary, TargetProfile } from './targets/index.ts';
import { DEFAULT_KERNEL_LIBRARY, cyclesToUs, spillPart } from './targets/index.ts';

/**
 * Time between two inferences in TinySeg's benchmark sketch (application/application.ino:
 * loop() ends with delay(5000)): asynchronous erases issued at a fetch may run on into it.
 */
export const TINYSEG_IDLE_BETWEEN_INFERENCES_US = 5_000_000;

/** TinySeg §5.1: the most frequent value fills "around 50%" of a tensor; used when no bytes are given. */
export const ASSUMED_MFV_SHARE = 0.5;

export interface LatencyOptions {
  readonly target: TargetProfile;
  readonly library?: KernelLibrary;
  /** Runtime around the kernels: TFLM's interpreter (default) or an ahead-of-time compiled graph. */
  readonly engine?: Engine;
  readonly storage?: StorageKind;
  readonly asyncErase?: boolean;
  readonly compress?: boolean;
  /** Bytes of a spilled tensor from a real run (the codec's output size depends on them). */
  readonly payloadOf?: (tensor: number) => Uint8Array | null;
  readonly idleBetweenInferencesUs?: number;
}

export interface LatencyBreakdown {
  readonly computeMs: number;
  readonly spillMs: number;
  readonly fetchMs: number;
  readonly codecMs: number;
  readonly stallMs: number;
}

export interface OpLatency extends LatencyBreakdown {
  readonly index: number;
  readonly kind: string;
  readonly name: string;
  /** The kernel's code path for the library and core (e.g. 'arm_convolve_1x1_s8_fast'). */
  readonly path: string;
  readonly macs: number;
  /** Instructions of the op's window in the build (kernel + TFLM's per-op glue), by class. */
  readonly instructions: number;
  readonly instructionClasses: ClassCounts;
  /** True when no measured instruction model covers the op (priced from its spec's loop nest). */
  readonly estimated: boolean;
  /** Compute cycles on the main core (calibration scale applied), and their time. */
  readonly cycles: number;
  readonly ms: number;
  /** This op's share of the whole inference's compute time. */
  readonly share: number;
  readonly startMs: number;
  readonly endMs: number;
  readonly totalMs: number;
}

export interface SlotLatency {
  readonly slot: number;
  readonly tensor: number;
  readonly rawBytes: number;
  /** Bytes written to storage (MFV-encoded with --compress), before block header and padding. */
  readonly storedBytes: number;
  readonly compression: 'none' | 'measured' | 'assumed';
  readonly region: StorageRegion;
}

export interface LatencyReport {
  readonly target: string;
  /** Same as target (the CLI contract's name). */
  readonly board: string;
  readonly library: KernelLibrary;
  readonly engine: Engine;
  readonly core: { readonly family: string; readonly clockHz: number };
  /** The (core family, library) constant applied to kernel cycles, and where it comes from. */
  readonly familyConstant: { readonly value: number; readonly source: string };
  /** The measured TFLM build whose instruction costs priced the ops (or why none did). */
  readonly build: string;
  /** Instructions of one Invoke: every op's window plus the interpreter's own loop (TFLM engine). */
  readonly instructions: number;
  readonly interpreter: { readonly instructions: number; readonly cycles: number };
  /** Ops priced without a measured instruction model (estimated from their spec's loop nest). */
  readonly estimatedOps: readonly number[];
  readonly storage: StorageKind;
  readonly asyncErase: boolean;
  readonly compress: boolean;
  readonly calibration: { readonly scale: number; readonly source: string } | null;
  readonly totalMs: number;
  readonly breakdown: LatencyBreakdown;
  readonly secondCoreBusyMs: number;
  readonly ops: readonly OpLatency[];
  readonly slots: readonly SlotLatency[];
  readonly timeline: { readonly main: readonly TimelineInterval[]; readonly second: readonly TimelineInterval[] };
}

interface SlotState {
  readonly report: SlotLatency;
  readonly stored: Uint8Array;
  readonly raw: Uint8Array | null;
}

interface Setup {
  readonly graph: Graph;
  readonly opts: Required<Omit<LatencyOptions, 'payloadOf'>> & Pick<LatencyOptions, 'payloadOf'>;
  readonly computeUs: readonly number[];
  readonly transfers: readonly (readonly StorageTransfer[])[];
}

/** An erase still running when the next inference starts (steady state of back-to-back runs). */
interface CarriedErase {
  readonly region: StorageRegion;
  readonly durationUs: number;
}

const ms = (us: number): number => Math.round(us) / 1000;

function storedPayload(setup: Setup, t: StorageTransfer): { stored: Uint8Array; raw: Uint8Array | null; compression: SlotLatency['compression'] } {
  const raw = setup.opts.payloadOf?.(t.tensor) ?? null;
  if (raw !== null && raw.length !== t.bytes) {
    throw new InternalError(`payload of tensor ${t.tensor} has ${raw.length} bytes, expected ${t.bytes}`);
  }
  if (!setup.opts.compress) return { stored: raw ?? new Uint8Array(t.bytes), raw, compression: 'none' };
  if (raw !== null) return { stored: compressMfv(raw), raw, compression: 'measured' };
  const size = mfvEncodedBytes(t.bytes, Math.ceil(t.bytes * (1 - ASSUMED_MFV_SHARE)));
  return { stored: new Uint8Array(size), raw: null, compression: 'assumed' };
}

/** TinySeg's _erase() hands the whole region to the driver in one erase(addr, size) call. */
function eraseUsOf(device: StorageDevice, region: StorageRegion): number {
  return device.eraseRangeUs(region.startAddr, region.endAddr - region.startAddr);
}

function eraseRegion(device: StorageDevice, region: StorageRegion): void {
  for (const s of sectorsCovering(device.geometry, region.startAddr, region.endAddr - region.startAddr)) device.erase(s);
}

function simulate(setup: Setup, carried: readonly CarriedErase[]): { timeline: DualCoreTimeline; slots: Map<number, SlotState> } {
  const { graph, opts, computeUs, transfers } = setup;
  const { target } = opts;
  if (!transfers.some((moves) => moves.length > 0)) {
    // Nothing spills: compute only, and no storage device (boards without a spill-store profile).
    const timeline = new DualCoreTimeline();
    graph.ops.forEach((op, i) => { if ((computeUs[i] ?? 0) > 0) timeline.run('compute', computeUs[i] ?? 0, op.kind, i); });
    return { timeline, slots: new Map() };
  }
  // TinySeg's init() erases the whole swap area before the first inference.
  const device = createStorage(target, opts.storage, { startErased: true });
  const timeline = new DualCoreTimeline();
  // With asynchronous erase TinySeg RPCs every flash transfer (codec included) to the second core.
  const rpc = opts.asyncErase && device.needsErase;
  const xferCore: CoreProfile = rpc ? spillPart(target, 'secondCore', '--async-erase') : target.mainCore;
  const crcUs = (bytes: number): number => cyclesToUs(xferCore, bytes * target.compute.crcCyclesPerByte);
  const slots = new Map<number, SlotState>();
  const unit = Math.max(device.geometry.sectorBytes, device.geometry.programUnitBytes);
  let nextAddr = 0;
  for (const c of carried) timeline.issueErase(c.region, c.durationUs, 'erase carried over from the previous inference');

  const erase = (region: StorageRegion, label: string, opIndex: number): void => {
    const us = eraseUsOf(device, region);
    eraseRegion(device, region);
    if (opts.asyncErase) timeline.issueErase(region, us, label, opIndex);
    else timeline.run('spill', us, `${label} (synchronous)`, opIndex);
  };

  const spill = (t: StorageTransfer, i: number): void => {
    const { stored, raw, compression } = storedPayload(setup, t);
    const footprint = spillFootprintBytes(device, stored.length);
    const prior = slots.get(t.slot);
    const addr = prior?.report.region.startAddr ?? nextAddr;
    if (prior === undefined) nextAddr += alignToUnit(footprint, unit);
    const region: StorageRegion = { device: device.name, startAddr: addr, endAddr: addr + footprint };
    if (setup.opts.compress) timeline.run('codec', mfvCodecTimeUs(target, 'compress', t.bytes, xferCore), `compress slot ${t.slot}`, i);
    if (!device.isErased(addr, footprint)) erase(region, `erase slot ${t.slot}`, i);
    timeline.requireErased(region, `wait for erase of slot ${t.slot}`, i);
    // Streamed through the op's I/O buffer: one program call per device unit (spill-store.ts).
    const r = spillBlock(device, { addr, blockId: t.slot, payload: stored, erase: 'none', chunkBytes: device.ioUnitBytes });
    timeline.run('spill', r.programUs + crcUs(footprint), `spill slot ${t.slot} (${stored.length} B)`, i);
    slots.set(t.slot, { report: { slot: t.slot, tensor: t.tensor, rawBytes: t.bytes, storedBytes: stored.length, compression, region }, stored, raw });
  };

  const fetch = (t: StorageTransfer, i: number): void => {
    const state = slots.get(t.slot);
    if (state === undefined) throw new InternalError(`slot ${t.slot} fetched before it was spilled`);
    const { region, storedBytes } = state.report;
    const r = fetchBlock(device, region.startAddr, { blockId: t.slot, payloadLength: storedBytes });
    const streaming = fetchStreaming(graph, i, setup.opts.compress);
    const reads = fetchReads(graph, i, device, region.startAddr, storedBytes, t.bytes, streaming);
    timeline.run('fetch', reads.checkUs + reads.kernelUs + crcUs(region.endAddr - region.startAddr), `fetch slot ${t.slot} (${storedBytes} B; ${reads.kernelReads} device reads by the kernel)`, i);
    // FetchingConv2D fills its row window between output rows, on the core running the kernel.
    const rows = graph.ops[i]?.kind === 'fetchingConv2d';
    const decodeCore = rows ? target.mainCore : xferCore;
    if (rows && !setup.opts.compress) timeline.run('fetch', cyclesToUs(decodeCore, t.bytes * target.compute.cyclesPerByteCopied), `copy slot ${t.slot} rows into the row window`, i);
    if (setup.opts.compress) {
      timeline.run('codec', mfvCodecTimeUs(target, 'decompress', t.bytes, decodeCore), `decompress slot ${t.slot}${rows ? ' row by row into the row window' : ''}`, i);
      if (state.raw !== null && !equalBytes(decompressMfv(r.payload, t.bytes), state.raw)) {
        throw new InternalError(`slot ${t.slot}: MFV round trip changed the tensor`);
      }
    }
    if (t.releasesSlot && device.needsErase) erase(region, `erase slot ${t.slot}`, i);
  };

  graph.ops.forEach((_, i) => {
    const moves = transfers[i] ?? [];
    for (const t of moves) if (t.direction === 'fetch') fetch(t, i);
    const us = computeUs[i] ?? 0;
    if (us > 0) timeline.run('compute', us, graph.ops[i]?.kind ?? 'op', i);
    for (const t of moves) if (t.direction === 'spill') spill(t, i);
  });
  return { timeline, slots };
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Erases of this inference still running `idleUs` after it ends: they delay the next one. */
function carriedErases(timeline: DualCoreTimeline, idleUs: number): CarriedErase[] {
  const nextStart = timeline.totals().totalUs + idleUs;
  const out: CarriedErase[] = [];
  let prevEnd = 0;
  for (const e of timeline.intervals('second')) {
    const end = e.endUs - nextStart;
    if (end <= prevEnd || e.region === undefined) continue;
    out.push({ region: e.region, durationUs: end - prevEnd });
    prevEnd = end;
  }
  return out;
}

function sumKind(intervals: readonly TimelineInterval[], kind: IntervalKind): number {
  return intervals.reduce((acc, x) => acc + (x.kind === kind ? x.endUs - x.startUs : 0), 0);
}

function opRows(graph: Graph, compute: readonly OpCompute[], scale: number, core: CoreProfile, main: readonly TimelineInterval[]): OpLatency[] {
  const totalCycles = compute.reduce((a, c) => a + c.cycles * scale, 0);
  const n = (x: number): number => Math.round(x);
  const byOp: TimelineInterval[][] = graph.ops.map(() => []);
  for (const x of main) if (x.opIndex !== undefined) byOp[x.opIndex]?.push(x);
  let cursor = 0;
  return graph.ops.map((op, i) => {
    const xs = byOp[i] ?? [];
    const startUs = xs.length > 0 ? Math.min(...xs.map((x) => x.startUs)) : cursor;
    const endUs = xs.length > 0 ? Math.max(...xs.map((x) => x.endUs)) : cursor;
    cursor = endUs;
    const out = graph.tensors[op.outputs[0] ?? op.inputs[0] ?? -1];
    const c = compute[i];
    return {
      index: i,
      kind: op.kind,
      name: out?.name ?? '',
      path: c?.path ?? 'none',
      macs: c?.macs ?? 0,
      instructions: n(c?.instructions ?? 0),
      instructionClasses: Object.fromEntries(Object.entries(c?.classes ?? {}).map(([k, v]) => [k, n(v ?? 0)])),
      estimated: c?.estimated ?? false,
      cycles: Math.round((c?.cycles ?? 0) * scale),
      ms: ms(cyclesToUs(core, (c?.cycles ?? 0) * scale)),
      share: totalCycles > 0 ? ((c?.cycles ?? 0) * scale) / totalCycles : 0,
      computeMs: ms(sumKind(xs, 'compute')),
      spillMs: ms(sumKind(xs, 'spill')),
      fetchMs: ms(sumKind(xs, 'fetch')),
      codecMs: ms(sumKind(xs, 'codec')),
      stallMs: ms(sumKind(xs, 'stall')),
      startMs: ms(startUs),
      endMs: ms(endUs),
      totalMs: ms(endUs - startUs),
    };
  });
}

/** Latency of one steady-state inference of `graph` (the model's plan does not affect it). */
/** The op with the largest share of a report's latency (`latency --boards`' heaviestOp, the page's board table). */
export function heaviestOp(r: LatencyReport): { readonly index: number; readonly kind: string; readonly share: number } | null {
  const top = [...r.ops].sort((a, b) => b.share - a.share)[0];
  return top === undefined ? null : { index: top.index, kind: top.kind, share: top.share };
}

export function estimateLatency(graph: Graph, options: LatencyOptions): LatencyReport {
  const opts = {
    target: options.target,
    library: options.library ?? DEFAULT_KERNEL_LIBRARY,
    engine: options.engine ?? 'tflm',
    storage: options.storage ?? 'internal',
    asyncErase: options.asyncErase ?? false,
    compress: options.compress ?? false,
    idleBetweenInferencesUs: options.idleBetweenInferencesUs ?? TINYSEG_IDLE_BETWEEN_INFERENCES_US,
    ...(options.payloadOf ? { payloadOf: options.payloadOf } : {}),
  };
  const calibration = opts.target.computeCalibration[opts.library] ?? null;
  const scale = calibration?.scale ?? 1;
  const ops = graph.ops.map((_, i) => opComputeCycles(graph, i, opts.target, opts.library, opts.engine));
  // The interpreter's loop runs around every op: its cycles join the ops' (the Invoke's own to op 0).
  const interp = interpreterCost(graph, opts.target, opts.library, opts.engine);
  const perOp = graph.ops.length > 0 ? interp.cycles / graph.ops.length : 0;
  const compute = ops.map((c) => ({ ...c, cycles: c.cycles + perOp }));
  const computeUs = compute.map((c) => cyclesToUs(opts.target.mainCore, c.cycles * scale));
  const setup: Setup = { graph, opts, computeUs, transfers: storageTransfers(graph) };
  let run = simulate(setup, []);
  if (opts.asyncErase) {
    const carried = carriedErases(run.timeline, opts.idleBetweenInferencesUs);
    if (carried.length > 0) run = simulate(setup, carried);
  }
  const totals = run.timeline.totals();
  const main = run.timeline.intervals('main');
  return {
    target: opts.target.name,
    board: opts.target.name,
    library: opts.library,
    engine: opts.engine,
    core: { family: opts.target.core.family, clockHz: opts.target.mainCore.clockHz },
    familyConstant: familyConstant(opts.target, opts.library),
    build: ops[0]?.build ?? '',
    instructions: Math.round(ops.reduce((a, c) => a + c.instructions, 0) + interp.instructions),
    interpreter: { instructions: interp.instructions, cycles: Math.round(interp.cycles) },
    estimatedOps: ops.flatMap((c, i) => (c.estimated ? [i] : [])),
    storage: opts.storage,
    asyncErase: opts.asyncErase,
    compress: opts.compress,
    calibration: calibration === null ? null : { scale: calibration.scale, source: calibration.source },
    totalMs: ms(totals.totalUs),
    breakdown: {
      computeMs: ms(totals.computeUs),
      spillMs: ms(totals.spillUs),
      fetchMs: ms(totals.fetchUs),
      codecMs: ms(totals.codecUs),
      stallMs: ms(totals.stallUs),
    },
    secondCoreBusyMs: ms(totals.secondCoreBusyUs),
    ops: opRows(graph, compute, scale, opts.target.mainCore, main),
    slots: [...run.slots.values()].map((s) => s.report),
    timeline: { main, second: run.timeline.intervals('second') },
  };
}
