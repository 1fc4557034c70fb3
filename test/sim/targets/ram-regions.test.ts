// The board's RAM is separate blocks (DESIGN.md §6): the arena region is the largest one, the blocks
// add up to the STM32H747's 1 MB of SRAM plus TCM and backup RAM, flash is the 2 MB internal flash.
import { describe, expect, it } from 'vitest';
import { niclaVision } from '../../../src/sim/index.ts';

describe('nicla-vision RAM regions', () => {
  const t = niclaVision;
  it('puts the arena in the largest region, the 512 KB AXI SRAM', () => {
    const largest = [...t.ramRegions].sort((a, b) => b.sizeBytes - a.sizeBytes)[0];
    expect(largest?.name).toBe(t.arenaRegion);
    expect(largest?.sizeBytes).toBe(512 * 1024);
  });
  it('sums the datasheet blocks and keeps the 2 MB flash', () => {
    expect(t.ramRegions.reduce((s, r) => s + r.sizeBytes, 0)).toBe((64 + 128 + 512 + 128 + 128 + 32 + 64 + 4) * 1024);
    expect(t.flashBytes).toBe(t.internalFlash.banks * t.internalFlash.sectorsPerBank * t.internalFlash.sectorBytes);
  });
});
