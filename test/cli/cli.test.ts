// Spawns the real bin: exit codes, one JSON document on stdout, SVG output.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BinRun } from './bin-helpers.ts';
import { runMcusim, testTempDir } from './bin-helpers.ts';

import { ORACLE_MODELS, itWithData } from '../oracle-paths.ts';
const MODEL = `${ORACLE_MODELS}/person_detect.tflite`;
const tmp = testTempDir('mcusim-cli-');

const mcusim = (...args: string[]): Promise<BinRun> => runMcusim(args);

function expectCleanBadInput(r: { code: number | null; stderr: string }): void {
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/^E_[A-Z_]+: /);
  expect(r.stderr).not.toMatch(/TypeError|RangeError|at .*\.(js|ts):\d+/);
}

describe('mcusim inspect', () => {
  itWithData('models', 'prints one JSON document with the plan, ops and tensors', async () => {
    const svg = join(tmp, 'plan.svg');
    const r = (await mcusim('inspect', MODEL, '--json', '--svg', svg, '--quiet'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.plan.planner).toBe('tflm-greedy');
    expect(doc.plan.peakBytes).toBe(55296);
    expect(doc.plan.lowerBoundBytes).toBeLessThanOrEqual(doc.plan.peakBytes);
    expect(doc.plan.buffers[0]).toEqual(expect.objectContaining({ tensor: expect.any(Number), offset: expect.any(Number), size: expect.any(Number) }));
    expect(doc.ops.length).toBeGreaterThan(0);
    const conv = doc.ops.find((o: { kind: string }) => o.kind === 'conv2d');
    const [, kh, kw, cin] = conv.inputShapes[1];
    const outElems = conv.outputShapes[0].reduce((a: number, b: number) => a * b, 1);
    expect(conv.macs).toBe(outElems * kh * kw * cin);
    expect(doc.tensors.length).toBeGreaterThan(0);

    const text = readFileSync(svg, 'utf8');
    expect(text).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(text.match(/<rect[^>]*class="buffer"/g)).toHaveLength(doc.plan.buffers.length);
    expect(text.trimEnd().endsWith('</svg>')).toBe(true);
  });

  itWithData('models', 'prints tables, and the ASCII plan with --ascii', async () => {
    const r = (await mcusim('inspect', MODEL, '--planner', 'linear', '--ascii'));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ 0: [0-9a-zA-Z*.!]+ \(\d+k\)$/m);
    expect(r.stdout).toContain('planner:     linear');
  });

  itWithData('models', 'exits 2 with a coded message for a missing file, a garbage file and an unknown planner', async () => {
    expectCleanBadInput((await mcusim('inspect', join(tmp, 'nope.tflite'), '--json')));
    const garbage = join(tmp, 'garbage.tflite');
    writeFileSync(garbage, Buffer.from('this is not a flatbuffer at all, just text'.repeat(3)));
    const r = (await mcusim('inspect', garbage, '--json'));
    expectCleanBadInput(r);
    expect(r.stdout).toBe('');
    const p = (await mcusim('inspect', MODEL, '--planner', 'nope'));
    expectCleanBadInput(p);
    expect(p.stderr).toContain('tflm-greedy');
  });

  it('exits 2 on usage errors and 0 on --help', async () => {
    expectCleanBadInput((await mcusim('inspect')));
    expectCleanBadInput((await mcusim('frobnicate')));
    expect((await mcusim('--help')).code).toBe(0);
  });
});

describe('mcusim zoo', () => {
  it('lists the zoo and exports a model that inspect can read back', async () => {
    const list = (await mcusim('zoo', 'list', '--json'));
    expect(list.code).toBe(0);
    const names = JSON.parse(list.stdout).models.map((m: { name: string }) => m.name);
    expect(names).toContain('tiny-unet');
    const out = join(tmp, 'tiny-unet.tflite');
    const ex = (await mcusim('zoo', 'export', 'tiny-unet', '-o', out));
    expect(ex.code).toBe(0);
    const a = JSON.parse((await mcusim('inspect', out, '--json')).stdout);
    const b = JSON.parse((await mcusim('inspect', 'zoo:tiny-unet', '--json')).stdout);
    expect(a.plan.peakBytes).toBe(b.plan.peakBytes);
  });
});
