// Issue 44's board profiles: every named board is registered, its RAM regions hold the arena region,
// its core features match its family, and the boards without a spill-store profile refuse storage.
import { describe, expect, it } from 'vitest';
import { createStorage, getTarget, listTargets } from '../../../src/sim/index.ts';

const NAMES = ['nicla-vision', 'nucleo-l4r5zi', 'ek-ra6m4', 'nrf5340-dk', 'nano33-ble-sense', 'disco-f746ng', 'nucleo-h743zi2',
  'nucleo-h7a3zi-q', 'nucleo-u575zi-q', 'numaker-m467hj', 'ek-ra8d1', 'rpi-pico', 'portenta-h7'];

describe('board profiles', () => {
  it('registers the 13 boards of the issue', () => {
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
  it('refuses spill storage on a board profiled without it (E_USAGE), builds it on nicla-vision', () => {
    expect(() => createStorage(getTarget('nucleo-l4r5zi'), 'internal')).toThrowError(expect.objectContaining({ code: 'E_USAGE' }));
    expect(createStorage(getTarget('nicla-vision'), 'internal').name).toBeTruthy();
  });
});
