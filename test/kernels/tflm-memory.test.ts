// Every registered kernel spec states its TFLM persistent footprint: stock builtins name structs
// that lay out on both builds, mcusim custom ops say why stock TFLM cannot run them.
import { describe, expect, it } from 'vitest';
import { KERNELS } from '../../src/kernels/index.ts';
import type { CStruct, TflmPersistent } from '../../src/kernels/index.ts';
import { CORTEX_M, HOST64, structLayout } from '../../src/sim/index.ts';

const CUSTOM = new Set(['spill', 'fetching', 'fetchingConv2d', 'merge']);

describe('KernelSpec.tflmPersistent', () => {
  for (const [kind, spec] of Object.entries(KERNELS)) {
    it(kind, () => {
      const t = spec?.tflmPersistent as TflmPersistent | undefined;
      expect(t).toBeDefined();
      if (t === undefined) return;
      expect(t.stock).toBe(!CUSTOM.has(kind));
      if (!t.stock) {
        expect(t.why).toMatch(/not a TFLM builtin/);
        return;
      }
      for (const s of [t.builtinData, t.opData].filter((x): x is CStruct => x !== null)) {
        for (const arch of [HOST64, CORTEX_M]) {
          const l = structLayout(s, arch);
          expect(l.sizeBytes % l.alignBytes, s.name).toBe(0);
          expect(l.sizeBytes, s.name).toBeGreaterThan(0);
        }
      }
    });
  }
});
