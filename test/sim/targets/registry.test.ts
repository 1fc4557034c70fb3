import { describe, expect, it } from 'vitest';
import { getTarget, listTargets, niclaVision } from '../../../src/sim/targets/index.ts';

describe('target registry', () => {
  it('returns the nicla-vision profile by name', () => {
    const t = getTarget('nicla-vision');
    expect(t).toBe(niclaVision);
    expect(t.mainCore.clockHz).toBe(480_000_000);
    expect(t.secondCore?.clockHz).toBe(240_000_000);
    expect(t.core).toEqual({ family: 'cortex-m7', dsp: true, fpu: 'dp', mve: false });
  });

  it('describes the STM32H747 flash as 2 banks x 8 sectors x 128 KB with 32-byte words', () => {
    const f = niclaVision.internalFlash;
    expect(f.banks * f.sectorsPerBank * f.sectorBytes).toBe(2 * 1024 * 1024);
    expect(f.programUnitBytes).toBe(32);
    expect(niclaVision.qspiFlash.sizeBytes).toBe(16 * 1024 * 1024);
  });

  it('rejects an unknown name with E_USAGE', () => {
    expect(listTargets()).toContain('nicla-vision');
    expect(() => getTarget('esp32')).toThrowError(expect.objectContaining({ code: 'E_USAGE' }));
    expect(() => getTarget('toString')).toThrowError(expect.objectContaining({ code: 'E_USAGE' }));
  });
});
