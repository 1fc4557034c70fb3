// Latency model (src/sim/latency.ts): calibration to TinySeg's original Tiny U-Net (1190 ms), the
// breakdown adding up, storage traffic from Spill / Fetching ops on a hand-built spilled variant,
// dual-core erase stalls, and coded errors for ops without a latency model.
import { describe, expect, it } from 'vitest';
import type { Graph } from '../../src/ir/index.ts';
import { estimateLatency, getTarget, niclaVision, renderTimelineSvg } from '../../src/sim/index.ts';
import type { LatencyReport } from '../../src/sim/index.ts';
import { originalTinyUnet, spilledTinyUnet } from './latency-variant.ts';

const sumBreakdown = (r: LatencyReport): number => Object.values(r.breakdown).reduce((a, b) => a + b, 0);

describe('estimateLatency', () => {
  const original = originalTinyUnet();
  const spilled = spilledTinyUnet(true);
  /** Plain Fetching: read sequentially, so MFV applies and the remote host streams packets. */
  const plain = spilledTinyUnet(false);

  it('is calibrated to 1190 ms for zoo:tiny-unet with CMSIS-NN kernels (TinySeg\'s build, the default), reference is slower', () => {
    const cmsis = estimateLatency(original, { target: niclaVision });
    expect(cmsis.library).toBe('cmsis-nn');
    expect(Math.abs(cmsis.totalMs - 1190)).toBeLessThan(1);
    expect(cmsis.familyConstant.source).toMatch(/Table 5/);
    expect(cmsis.calibration).toBeNull();
    const ref = estimateLatency(original, { target: niclaVision, library: 'reference' });
    // Nicla Vision's -Os build: the reference constant is the vendor build's (tinyengine's STM32H743 table)
    // scaled by Table 5's -Os / vendor CMSIS-NN ratio; a vendor-build board takes the table's constants.
    expect(ref.familyConstant.source).toMatch(/-Os/);
    expect(estimateLatency(original, { target: getTarget('nucleo-h743zi2') }).familyConstant.source).toMatch(/tinyengine/);
    expect(ref.build).toMatch(/reference/);
    expect(cmsis.totalMs).toBeLessThan(ref.totalMs);
    expect(cmsis.breakdown.spillMs + cmsis.breakdown.fetchMs + cmsis.breakdown.stallMs).toBe(0);
  });

  it('per-op rows and the breakdown add up to the total', () => {
    const r = estimateLatency(spilled, { target: niclaVision, storage: 'external', compress: true });
    expect(r.ops).toHaveLength(spilled.ops.length);
    expect(Math.abs(sumBreakdown(r) - r.totalMs)).toBeLessThan(0.01);
    const opSum = r.ops.reduce((a, o) => a + o.computeMs + o.spillMs + o.fetchMs + o.codecMs + o.stallMs, 0);
    expect(Math.abs(opSum - r.totalMs)).toBeLessThan(0.05);
    expect(r.ops.find((o) => o.kind === 'spill')?.spillMs).toBeGreaterThan(0);
    expect(r.ops.find((o) => o.kind === 'fetchingConv2d')?.fetchMs).toBeGreaterThan(0);
  });

  it('charges the spilled 76,800 B to storage on every device, erase only on flash', () => {
    const byStorage = (storage: 'internal' | 'external' | 'remote'): LatencyReport => estimateLatency(plain, { target: niclaVision, storage });
    const [internal, external, remote] = [byStorage('internal'), byStorage('external'), byStorage('remote')];
    for (const r of [internal, external, remote]) expect(r.slots).toEqual([expect.objectContaining({ slot: 0, rawBytes: 76_800, storedBytes: 76_800, compression: 'none' })]);
    // Synchronous erase of one 128 KB internal sector dominates (DS12110: 1.1 s typ).
    expect(internal.breakdown.spillMs).toBeGreaterThan(niclaVision.internalFlash.sectorEraseUs / 1000);
    expect(remote.totalMs).toBeLessThan(internal.totalMs);
    expect(remote.secondCoreBusyMs).toBe(0);
    expect(external.breakdown.spillMs).toBeGreaterThan(internal.breakdown.spillMs * 0.5);
  });

  it('compression shrinks the stored bytes (assumed 50% share without data) and costs codec time', () => {
    const r = estimateLatency(plain, { target: niclaVision, storage: 'external', compress: true });
    expect(r.slots[0]?.compression).toBe('assumed');
    expect(r.slots[0]?.storedBytes).toBe(1 + 9600 + 38_400);
    expect(r.breakdown.codecMs).toBeGreaterThan(0);
    const raw = estimateLatency(plain, { target: niclaVision, storage: 'external' });
    expect(r.totalMs).toBeLessThan(raw.totalMs);
  });

  it('--compress MFV-encodes the slot FetchingConv2D reads: fewer bytes programmed and read, decode costed per element', () => {
    const r = estimateLatency(spilled, { target: niclaVision, storage: 'external', compress: true });
    expect(r.slots[0]).toEqual(expect.objectContaining({ compression: 'assumed', storedBytes: 1 + 9600 + 38_400 }));
    // The codec model: 76,800 decoded bytes at decodeCyclesPerByte on the main core (the row window
    // is filled between output rows), plus the spill's histogram + encode.
    const fetchOp = r.ops.find((o) => o.kind === 'fetchingConv2d');
    expect(fetchOp?.codecMs).toBeCloseTo((76_800 * niclaVision.codec.decodeCyclesPerByte) / niclaVision.mainCore.clockHz * 1000, 2);
    const raw = estimateLatency(spilled, { target: niclaVision, storage: 'external' });
    expect(r.totalMs).toBeLessThan(raw.totalMs);
    expect(fetchOp?.fetchMs).toBeLessThan(raw.ops.find((o) => o.kind === 'fetchingConv2d')?.fetchMs ?? 0);
  });

  it('FetchingConv2D streams its slot sequentially: remote requests ~ payload / I/O buffer, memory-mapped lines read once', () => {
    const fused = estimateLatency(spilled, { target: niclaVision, storage: 'remote' });
    const seq = estimateLatency(plain, { target: niclaVision, storage: 'remote' });
    const reads = (r: LatencyReport): string => r.timeline.main.find((x) => x.kind === 'fetch' && /device reads/.test(x.label))?.label ?? '';
    // 76,800 B through the 512-B buffer: 150 requests, as one sequential plain Fetching.
    expect(reads(fused)).toMatch(/; 150 device reads by the kernel/);
    expect(fused.breakdown.fetchMs).toBeLessThan(1.2 * seq.breakdown.fetchMs);
    const mapped = estimateLatency(spilled, { target: niclaVision, storage: 'internal' });
    expect(reads(mapped)).toMatch(/; 2400 device reads by the kernel/);
    expect(mapped.breakdown.fetchMs).toBeLessThan(seq.breakdown.fetchMs);
  });

  it('measured payloads are MFV-encoded byte-accurately and round-trip', () => {
    const payload = new Uint8Array(76_800).fill(0x80);
    for (let i = 0; i < payload.length; i += 10) payload[i] = i & 0x7f;
    const r = estimateLatency(plain, { target: niclaVision, storage: 'internal', compress: true, payloadOf: (t) => (t === 6 ? payload : null) });
    expect(r.slots[0]).toEqual(expect.objectContaining({ compression: 'measured', storedBytes: 1 + 9600 + 7680 }));
  });

  it('async erase moves the erase to the second core; the next inference stalls only without idle time', () => {
    const sync = estimateLatency(spilled, { target: niclaVision, storage: 'internal', compress: true });
    const idle = estimateLatency(spilled, { target: niclaVision, storage: 'internal', compress: true, asyncErase: true });
    expect(idle.totalMs).toBeLessThan(sync.totalMs - 900);
    expect(idle.breakdown.stallMs).toBe(0);
    expect(idle.timeline.second.some((x) => x.kind === 'erase')).toBe(true);
    const backToBack = estimateLatency(spilled, { target: niclaVision, storage: 'internal', compress: true, asyncErase: true, idleBetweenInferencesUs: 0 });
    expect(backToBack.breakdown.stallMs).toBeGreaterThan(0);
    expect(backToBack.totalMs).toBeGreaterThan(idle.totalMs);
    const svg = renderTimelineSvg(backToBack);
    expect(svg).toMatch(/^<svg/);
    expect(svg).toContain('second core');
    expect(svg).toContain('stall');
    expect(svg).toContain('time since the inference started (ms)');
    // Op labels on the main core where they fit; the erase running past the inference is explained.
    expect(svg).toMatch(/<text[^>]*fill="white">\d+ /);
    const mainEnd = Math.max(...backToBack.timeline.main.map((x) => x.endUs));
    expect(backToBack.timeline.second.some((x) => x.endUs > mainEnd)).toBe(true);
    expect(svg).toContain('class="inference-end"');
    expect(svg).toContain('next inference');
    expect(renderTimelineSvg(idle)).toContain('time since the inference started (ms)');
  });

  it('rejects a custom op and a fetch before any spill with coded errors', () => {
    const custom: Graph = { ...original, ops: [...original.ops, { kind: 'custom', customCode: 'Foo', customOptions: new Uint8Array(0), inputs: [], outputs: [] }] };
    expect(() => estimateLatency(custom, { target: niclaVision })).toThrowError(expect.objectContaining({ code: 'E_MODEL_UNSUPPORTED_OP' }));
    const noSpill: Graph = { ...spilled, ops: spilled.ops.filter((op) => op.kind !== 'spill') };
    expect(() => estimateLatency(noSpill, { target: niclaVision })).toThrowError(expect.objectContaining({ code: 'E_MODEL_INVALID' }));
  });
});
