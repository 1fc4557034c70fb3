// overrideTarget: a built-in profile plus a user's numbers (`--target-file`). Only the named leaves
// change, every problem is reported at once with its path (coded E_USAGE), and storage geometry no
// device accepts is refused up front; the merged numbers are the ones the latency model uses.
import { describe, expect, it } from 'vitest';
import { McusimError } from '../../src/ir/index.ts';
import { MAX_STORAGE_BYTES, estimateLatency, getTarget, niclaVision, overrideTarget } from '../../src/sim/index.ts';
import { buildZooModel } from '../../src/ir/index.ts';
import { spilledTinyUnet } from './latency-variant.ts';

function problemsOf(overrides: unknown): string[] {
  try {
    overrideTarget(niclaVision, overrides);
  } catch (e) {
    expect(e).toBeInstanceOf(McusimError);
    expect((e as McusimError).code).toBe('E_USAGE');
    return (e as Error).message.split('\n').slice(1).map((l) => l.trim());
  }
  throw new Error('expected the overrides to be refused');
}

describe('overrideTarget', () => {
  it('returns the base profile unchanged for no overrides and changes only the named leaves', () => {
    expect(overrideTarget(niclaVision, {})).toEqual(niclaVision);
    const t = overrideTarget(niclaVision, { name: 'bench', remoteHost: { readCyclesPerByte: 2300 }, qspiFlash: { pageProgramUs: 600 } });
    expect(t).toEqual({
      ...niclaVision,
      name: 'bench',
      remoteHost: { ...niclaVision.remoteHost, readCyclesPerByte: 2300 },
      qspiFlash: { ...niclaVision.qspiFlash, pageProgramUs: 600 },
    });
    expect(niclaVision.remoteHost.readCyclesPerByte).toBe(300);
  });

  it('replaces arrays whole and adds a calibration the base lacks only when it is complete', () => {
    const t = overrideTarget(niclaVision, {
      qspiFlash: { blockErases: [{ sizeBytes: 65536, eraseUs: 250_000 }] },
      computeCalibration: { 'cmsis-nn': { scale: 1.5, source: 'own board, 2026-11' } },
    });
    expect(t.qspiFlash?.blockErases).toEqual([{ sizeBytes: 65536, eraseUs: 250_000 }]);
    expect(t.computeCalibration['cmsis-nn']).toEqual({ scale: 1.5, source: 'own board, 2026-11' });
    expect(t.computeCalibration.reference).toEqual(niclaVision.computeCalibration.reference);
    expect(problemsOf({ computeCalibration: { 'cmsis-nn': { scale: 2 }, fast: { scale: 1, source: 'x' } } })).toEqual([
      'computeCalibration.cmsis-nn.source: missing',
      'computeCalibration.fast: unknown kernel library (known: reference, cmsis-nn)',
    ]);
  });

  it('reports every problem at once with its path', () => {
    const problems = problemsOf({
      mainCore: { clockHz: 0 },
      remoteHost: { readCyclesPerByte: -1, packetBytes: 0.5, bogus: 1 },
      internalFlash: { wordProgramUs: Number.NaN, sizeBytes: 1 },
      qspiFlash: { sizeBytes: MAX_STORAGE_BYTES * 2, blockErases: [{ sizeBytes: 8192 }], readDataLines: '4' },
      description: 7,
      codec: [],
    });
    expect(problems).toHaveLength(11);
    expect(problems).toEqual(expect.arrayContaining([
      'mainCore.clockHz: must be > 0, got 0',
      'remoteHost.readCyclesPerByte: must be >= 0, got -1',
      'remoteHost.packetBytes: must be a whole number, got 0.5',
      expect.stringMatching(/^remoteHost\.bogus: unknown key \(known: sizeBytes, /),
      'internalFlash.wordProgramUs: must be a finite number',
      expect.stringMatching(/^internalFlash\.sizeBytes: unknown key/),
      expect.stringMatching(/^qspiFlash\.sizeBytes: at most 1073741824 bytes/),
      'qspiFlash.blockErases[0].eraseUs: missing',
      'qspiFlash.readDataLines: must be a finite number',
      'description: must be a string',
      'codec: must be an object',
    ]));
    expect(problemsOf({ codec: [] })).toEqual(['codec: must be an object']);
  });

  it('refuses a profile whose storage geometry no device accepts', () => {
    expect(() => overrideTarget(niclaVision, { qspiFlash: { blockErases: [{ sizeBytes: 6144, eraseUs: 1 }] } })).toThrow(/external storage: .*does not tile/);
    expect(() => overrideTarget(niclaVision, { internalFlash: { programUnitBytes: 48 } })).toThrow(/internal storage/);
    expect(() => overrideTarget(niclaVision, [])).toThrow(/must be a JSON object/);
  });

  it('overrides a board without spill storage; optional flash keys and booleans are checked', () => {
    const ra8 = getTarget('ek-ra8d1');
    // A project that enables the RA8D1's L1 D-cache: 32-byte line fills the cache holds between passes.
    const dcache = overrideTarget(ra8, { flashTiming: { accessBytes: 32, dataCacheBytes: 32 * 1024 } });
    expect(dcache.flashTiming.dataCacheBytes).toBe(32 * 1024);
    const ad = buildZooModel('mlperf-ad').graph;
    expect(estimateLatency(ad, { target: dcache }).totalMs).toBeLessThan(estimateLatency(ad, { target: ra8 }).totalMs);
    const ra6 = getTarget('ek-ra6m4');
    expect(overrideTarget(ra6, { flashTiming: { busBytes: 8, busClockDivider: 2 } }).flashTiming.busClockDivider).toBe(2);
    expect(() => overrideTarget(ra6, { flashTiming: { dataPrefetch: 1, busBytes: 0, foo: 1 } })).toThrow(
      /dataPrefetch: must be true or false[\s\S]*busBytes: must be > 0[\s\S]*foo: unknown key/);
  });

  it('feeds the latency model: a slower receive path lengthens only the remote fetch', () => {
    const g = spilledTinyUnet(false);
    const base = estimateLatency(g, { target: niclaVision, storage: 'remote' });
    const slow = estimateLatency(g, { target: overrideTarget(niclaVision, { remoteHost: { readCyclesPerByte: 600 } }), storage: 'remote' });
    // The block is received twice (CRC read-back through the I/O buffer, then the Fetching kernel's
    // sequential reads): (2 x 76,800 + 16-B header) x 300 more cycles at 480 MHz; compute and spill unchanged.
    expect(slow.breakdown.fetchMs - base.breakdown.fetchMs).toBeCloseTo(((2 * 76_800 + 16) * 300) / 480_000, 0);
    expect(slow.breakdown.computeMs).toBe(base.breakdown.computeMs);
    expect(slow.breakdown.spillMs).toBe(base.breakdown.spillMs);
  });
});
