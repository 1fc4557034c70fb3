// The WebAssembly compile tier is a process-wide choice (src/kernels/wasm-tier.ts): mcusim takes the
// optimizing tier when its kernels load, unless the process chose first (the test setup file does),
// and a second copy of the module sees the same choice. Run in fresh processes on the built dist/.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIST = join(import.meta.dirname, '../../dist/kernels');
const node = (script: string): string => execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim();

describe('setWasmTier / ensureWasmTier', () => {
  it('loading the kernels takes the optimizing tier in a process that chose none', () => {
    expect(node(`await import('${DIST}/wasm-kernels.js'); const t = await import('${DIST}/wasm-tier.js'); console.log(t.ensureWasmTier())`)).toBe('optimizing');
  });

  it('a tier chosen before the kernels load is kept, and a second copy of the module sees it', () => {
    const out = node(`
      const t = await import('${DIST}/wasm-tier.js');
      t.setWasmTier('baseline');
      await import('${DIST}/wasm-kernels.js');
      const copy = await import('${DIST}/wasm-tier.js?copy');
      console.log(t.ensureWasmTier(), copy.ensureWasmTier());
      copy.setWasmTier('optimizing');
      console.log(t.ensureWasmTier());`);
    expect(out.split('\n')).toEqual(['baseline baseline', 'optimizing']);
  });

  it('this test process compiles with the baseline tier (test/wasm-baseline-tier.ts)', async () => {
    const { ensureWasmTier } = await import('../../src/kernels/index.ts');
    expect(ensureWasmTier()).toBe('baseline');
  });
});
