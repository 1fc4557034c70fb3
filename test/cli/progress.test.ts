// Issue 14 item 3: counted progress on stderr (countedProgress, used by verify per seed): silent in
// the first second, then throttled "seed i/N" lines; an extrapolated total after the first seed
// when the run looks long; nothing with --quiet. verify's --json stdout stays one document.
import { describe, expect, it } from 'vitest';
import { countedProgress } from '../../src/cli/progress.ts';
import type { BinRun } from './bin-helpers.ts';
import { runMcusim } from './bin-helpers.ts';

function fake(quiet = false): { readonly out: string[]; readonly at: (ms: number) => void; readonly p: ReturnType<typeof countedProgress> } {
  let t = 0;
  const out: string[] = [];
  const p = countedProgress('seed', 1000, { quiet, now: () => t, write: (s) => void out.push(s), tty: false, parallel: 2 });
  return { out, at: (ms) => { t = ms; }, p };
}

describe('countedProgress', () => {
  it('estimates the whole run from the first unit and throttles the count lines to one a second', () => {
    const { out, at, p } = fake();
    at(3000);
    p.tick(1);
    // 3 s per seed, 1000 seeds on 2 threads: 1500 s.
    expect(out[0]).toBe('seed 1 took 3.0 s; 1000 seeds on 2 threads: about 25.0 min in all\n');
    expect(out[1]).toBe('seed 1/1000, 3.0 s\n');
    at(3500);
    p.tick(2);
    expect(out).toHaveLength(2);
    at(4100);
    p.tick(3);
    expect(out[2]).toBe('seed 3/1000, 4.1 s\n');
  });

  it('says nothing in the first second, nor at all when quiet', () => {
    const a = fake();
    a.at(10);
    a.p.tick(1);
    a.at(20);
    a.p.tick(2);
    expect(a.out).toEqual([]);
    const q = fake(true);
    q.at(5000);
    q.p.tick(1);
    q.p.finish();
    expect(q.out).toEqual([]);
  });
});

describe('verify progress', () => {
  const mcusim = (...args: string[]): BinRun => runMcusim(args, 300_000);
  it('--quiet leaves stderr empty and --json stdout is one JSON document either way', () => {
    const loud = mcusim('verify', 'zoo:cifar10-cnn', 'zoo:cifar10-cnn', '--seeds', '2', '--jobs', '1', '--json');
    expect(loud.code, loud.stderr).toBe(0);
    expect(JSON.parse(loud.stdout).seeds).toBe(2);
    expect(loud.stderr).toMatch(/^(seed .*\n)*$/);
    const quiet = mcusim('verify', 'zoo:cifar10-cnn', 'zoo:cifar10-cnn', '--seeds', '2', '--jobs', '1', '--json', '--quiet');
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
    expect(JSON.parse(quiet.stdout)).toEqual(JSON.parse(loud.stdout));
  });
});
