// runPipeline / PASSES: passes chain in order, unknown names fail before anything runs.
import { describe, expect, it } from 'vitest';
import { buildZooModel, readOfflinePlan } from '../../src/ir/index.ts';
import { PASSES, getPass, passNames, runPipeline } from '../../src/optimizer/index.ts';

describe('runPipeline', () => {
  it('lists dmo and replacement, and rejects an unknown pass with E_USAGE naming the passes', () => {
    expect(passNames()).toEqual(expect.arrayContaining(['dmo', 'replacement']));
    expect(PASSES['dmo']?.name).toBe('dmo');
    expect(() => getPass('nope')).toThrow(expect.objectContaining({ code: 'E_USAGE', message: expect.stringContaining('dmo') }));
    const model = buildZooModel('cifar10-cnn');
    expect(() => runPipeline(model, ['replacement', 'nope'], { flags: {} })).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
  });

  it('chains passes: each sees the previous model, reports come back in order', () => {
    const model = buildZooModel('cifar10-cnn');
    const lines: string[] = [];
    const r = runPipeline(model, ['replacement', 'dmo'], { flags: {}, log: (l) => lines.push(l) });
    expect(r.reports.map((x) => x.pass)).toEqual(['replacement', 'dmo']);
    const [rep, dmo] = r.reports;
    expect(rep?.peakBytesAfter).toBe(35_840);
    expect(dmo?.peakBytesBefore).toBe(35_840);
    expect(dmo?.peakBytesAfter).toBeLessThan(35_840);
    expect(readOfflinePlan(r.model)).not.toBeNull();
    expect(lines).toContain('running replacement (pass 1 of 2)');
    expect(lines).toContain('running dmo (pass 2 of 2)');
  });
});
