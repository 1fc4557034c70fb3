// vitest setup file: the test processes compile kernel modules with V8's baseline tiers
// (setWasmTier('baseline'): Liftoff, lazily), not the optimizing tier up front that mcusim takes
// by default (src/kernels/wasm-tier.ts). The suite compiles thousands of one-off kernels (the
// property tests' random ops, the oracle vectors) and runs each on a few bytes, where eager
// optimized compiles were half of the kernel property test's time. The bytes and trace events do
// not depend on the tier; the CLI tests run the built bin, which compiles as users' runs do. The
// choice is recorded on the process, so the kernels module, loaded after this, keeps it; this file
// imports only wasm-tier.ts, since vitest runs it again before every test file.
import { setWasmTier } from '../src/kernels/wasm-tier.ts';

setWasmTier('baseline');
