// vitest: the made-up depthwise O_s formula (depthwise-formula.js) is safe on 200 seeded random
// configurations, and how tight it is. Run with `npx vitest run` in a project that installed mcusim.
// MCUSIM_EXAMPLE_UNSAFE=1 checks the deliberately unsafe variant instead: the test then fails,
// naming each unsafe case and the clobber the memory tracer saw.
import { expect, it } from 'vitest';
import { checkOverlapFormula } from 'mcusim';
import { depthwiseOverlap } from './depthwise-formula.js';

const ignorePadding = process.env.MCUSIM_EXAMPLE_UNSAFE === '1';

it(`depthwise O_s formula${ignorePadding ? ' (padding ignored)' : ''} never exceeds the exact O_s`, () => {
  const check = checkOverlapFormula((op) => depthwiseOverlap(op, { ignorePadding }), { kinds: ['depthwiseConv2d'], cases: 200, seed: 'docs' });
  console.log(check.summary);
  expect(check.cases).toHaveLength(200);
  expect(check.unsafe, check.summary).toEqual([]);
  expect(check.tightness.mean).toBeGreaterThan(0.3);
});
