// vitest setup file: the test processes compile kernel modules with V8's baseline tiers
// (setWasmTier('baseline'): Liftoff, lazily), not the optimizing tier up front that mcusim sets for
// itself. The suite compiles thousands of one-off kernels (the property tests' random ops, the
// oracle vectors) and runs each on a few bytes, where eager optimized compiles were a third of the
// kernel property test's time. The bytes and trace events do not depend on the tier; the CLI
// tests run the built bin, which compiles as users' runs do.
import { setWasmTier } from '../src/kernels/index.ts';

setWasmTier('baseline');
