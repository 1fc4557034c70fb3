// Plain Node: check the made-up depthwise O_s formula on 200 seeded configurations and print the
// result (tightness; every unsafe case with its clobber). `node check-formula.mjs unsafe` checks
// the deliberately unsafe variant; the exit code is 1 when any case is unsafe.
import { checkOverlapFormula } from 'mcusim';
import { depthwiseOverlap } from './depthwise-formula.js';

const ignorePadding = process.argv[2] === 'unsafe';
const check = checkOverlapFormula((op) => depthwiseOverlap(op, { ignorePadding }), { kinds: ['depthwiseConv2d'], cases: 200, seed: 'docs' });
console.log(check.summary);
process.exitCode = check.safe ? 0 : 1;
