// docs/ops.md lists every registered kernel kind (the supported-ops table stays in step with the
// registry) and names no kind the registry lacks.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KERNELS } from '../../src/kernels/index.ts';

const doc = readFileSync(resolve(import.meta.dirname, '../../docs/ops.md'), 'utf8');
const rows = doc.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| TFLite op') && !l.startsWith('|---'));
const documented = new Set(rows.flatMap((r) => (r.split('|')[2] ?? '').split(',').map((k) => k.trim())).filter((k) => k !== ''));

describe('docs/ops.md', () => {
  it('lists every registered kernel kind', () => {
    expect(Object.keys(KERNELS).filter((k) => !documented.has(k))).toEqual([]);
  });
  it('lists no kind the registry lacks', () => {
    expect([...documented].filter((k) => !(k in KERNELS))).toEqual([]);
  });
});
