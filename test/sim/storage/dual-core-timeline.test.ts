import { describe, expect, it } from 'vitest';
import { DualCoreTimeline } from '../../../src/sim/storage/index.ts';

const region = (startAddr: number, endAddr: number, device = 'internal-flash') => ({ device, startAddr, endAddr });

describe('DualCoreTimeline', () => {
  it('stalls the main core only while an overlapping erase is still running', () => {
    const t = new DualCoreTimeline();
    t.run('compute', 100, 'conv 0', 0);
    t.issueErase(region(0, 4096), 1000, 'erase s0');
    t.run('compute', 300, 'conv 1', 1);
    expect(t.requireErased(region(8192, 9000), 'spill other')).toBe(0);
    expect(t.requireErased(region(0, 100), 'spill t3', 2)).toBe(700);
    expect(t.nowUs).toBe(1100);
    t.run('spill', 50, 'spill t3', 2);
    expect(t.requireErased(region(0, 100), 'again')).toBe(0);
    const totals = t.totals();
    expect(totals).toMatchObject({ computeUs: 400, spillUs: 50, stallUs: 700, totalUs: 1150, secondCoreBusyUs: 1000 });
    const stall = t.intervals('main').find((i) => i.kind === 'stall');
    expect(stall).toMatchObject({ startUs: 400, endUs: 1100, opIndex: 2 });
  });

  it('does not stall when the erase finished in the shadow of compute', () => {
    const t = new DualCoreTimeline();
    t.issueErase(region(0, 4096), 500, 'erase');
    t.run('compute', 800, 'conv');
    expect(t.requireErased(region(0, 4096), 'spill')).toBe(0);
    expect(t.totals().stallUs).toBe(0);
  });

  it('queues erases on the second core and ignores other devices', () => {
    const t = new DualCoreTimeline();
    t.issueErase(region(0, 10), 1000, 'e1');
    const e2 = t.issueErase(region(10, 20), 1000, 'e2');
    expect(e2.startUs).toBe(1000);
    expect(t.requireErased(region(0, 20, 'qspi-flash'), 'other device')).toBe(0);
    expect(t.requireErased(region(15, 16), 'wait e2')).toBe(2000);
    expect(t.totals().secondCoreEndUs).toBe(2000);
    expect(t.intervals('second').map((i) => i.label)).toEqual(['e1', 'e2']);
  });

  it('records codec and fetch work and rejects bad durations', () => {
    const t = new DualCoreTimeline();
    t.run('codec', 5, 'compress');
    t.run('fetch', 7, 'fetch');
    expect(t.totals()).toMatchObject({ codecUs: 5, fetchUs: 7, totalUs: 12 });
    expect(() => t.run('compute', -1, 'bad')).toThrowError(expect.objectContaining({ code: 'E_INTERNAL' }));
    expect(() => t.requireErased(region(5, 1), 'bad')).toThrowError(expect.objectContaining({ code: 'E_USAGE' }));
  });
});
