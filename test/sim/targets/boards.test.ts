// Issue 44's board profiles: every named board is registered, its RAM regions hold the arena region,
// its core features match its family, and the boards without a spill-store profile refuse storage.
import { describe, expect, it } from 'vitest';
import { createStorage, getTarget, listTargets } from '../../../src/sim/index.ts';

const NAMES = ['nicla-vision', 'nucleo-l4r5zi', 'ek-ra6m4', 'nrf5340-dk', 'nano33-ble-sense', 'disco-f746ng', 'nucleo-h743zi2',
  'nucleo-h7a3zi-q', 'nucleo-u575zi-q', 'numaker-m467hj', 'ek-ra8d1', 'rpi-pico', 'portenta-h7', 'ensemble-e7'];

describe('board profiles', () => {
  it('registers the 14 boards of the issues (ensemble-e7: issue 54)', () => {
    expect([...listTargets()].sort()).toEqual([...NAMES].sort());
  });
  it.each(NAMES)('%s: arena region listed, features consistent, flash timing sane', (name) => {
    const t = getTarget(name);
    expect(t.ramRegions.map((r) => r.name)).toContain(t.arenaRegion);
    expect(t.sramBytes).toBeLessThanOrEqual(t.ramRegions.reduce((a, r) => a + r.sizeBytes, 0));
    expect(t.core.mve).toBe(t.core.family === 'cortex-m55' || t.core.family === 'cortex-m85');
    expect(t.core.dsp).toBe(t.core.family !== 'cortex-m0plus');
    expect(t.flashTiming.accessBytes).toBeGreaterThan(0);
    expect(Number.isInteger(t.flashTiming.waitStates)).toBe(true);
    expect(t.mainCore.name).toBe(t.core.family);
  });
  it('gives the MLPerf Tiny clocks and the L4R5 wait states (RM0432: 5 at 120 MHz)', () => {
    expect(getTarget('nucleo-l4r5zi').mainCore.clockHz).toBe(120e6);
    expect(getTarget('nucleo-l4r5zi').flashTiming.waitStates).toBe(5);
    expect(getTarget('ek-ra6m4').mainCore.clockHz).toBe(200e6);
    expect(getTarget('nrf5340-dk').mainCore.clockHz).toBe(128e6);
  });
  // Each figure as the vendor code that encodes the datasheet table gives it at the profile's clock
  // (STM32Cube *_ll_utils.c / examples, Renesas FSP bsp_feature.h, Nuvoton m460bsp fmc_reg.h + clk.c).
  it.each([
    ['nucleo-l4r5zi', 120e6, 5], ['disco-f746ng', 216e6, 7], ['nucleo-h743zi2', 480e6, 4], ['portenta-h7', 480e6, 4],
    ['nucleo-h7a3zi-q', 280e6, 6], ['nucleo-u575zi-q', 160e6, 4], ['ek-ra6m4', 200e6, 3], ['ek-ra8d1', 480e6, 4],
    ['numaker-m467hj', 200e6, 8],
  ] as const)('%s: clock %d Hz, %d flash wait states (sourced)', (name, clockHz, waitStates) => {
    const t = getTarget(name);
    expect(t.mainCore.clockHz).toBe(clockHz);
    expect(t.flashTiming.waitStates).toBe(waitStates);
  });
  it('RA8D1: ICLK at half the core clock, flash read over the M85\'s 64-bit AXI, L1 D-cache off (FSP default)', () => {
    const f = getTarget('ek-ra8d1').flashTiming;
    expect([f.waitStates, f.busClockDivider, f.busBytes, f.accessBytes, f.dataCacheBytes]).toEqual([4, 2, 8, 16, 0]);
    // The H743 / H747 count their wait states at the 240 MHz AXI clock too; the H7A3's AXI runs at the core clock.
    for (const b of ['nucleo-h743zi2', 'portenta-h7', 'nicla-vision']) expect(getTarget(b).flashTiming.busClockDivider).toBe(2);
    expect(getTarget('nucleo-h7a3zi-q').flashTiming.busClockDivider ?? 1).toBe(1);
  });
  it('RA6M4: no flash prefetch buffer (FSP BSP_FEATURE_BSP_FLASH_PREFETCH_BUFFER 0)', () => {
    const f = getTarget('ek-ra6m4').flashTiming;
    expect(f.dataPrefetch).toBe(false);
    expect(f.accelerator).not.toMatch(/prefetch buffer on/);
  });
  it('refuses spill storage on a board profiled without it (E_USAGE), builds it on nicla-vision', () => {
    expect(() => createStorage(getTarget('nucleo-l4r5zi'), 'internal')).toThrowError(expect.objectContaining({ code: 'E_USAGE' }));
    expect(createStorage(getTarget('nicla-vision'), 'internal').name).toBeTruthy();
  });
});
