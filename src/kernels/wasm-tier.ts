// Which V8 tiers compile mcusim's WebAssembly kernel modules. V8's flags are process-wide, so the
// choice is recorded on the process (a registered symbol on globalThis), not in this module: a
// second copy of the module (a bundle beside the sources, a test runner's fresh module registry)
// sees the same choice and does not reset it.
//
// 'optimizing', the default: every function with the optimizing tier when its module is made,
// before its first call. V8's own defaults ('baseline': lazy compilation, the Liftoff tier, then
// tier-up once hot) made a model's first run 2-3x its steady run, since a kernel called once runs
// its whole loop nest in Liftoff code; eager optimized compiles of the ~20 kernel modules of a
// model cost a few milliseconds each. 'baseline' suits a process that compiles thousands of
// one-off kernels and runs each on a few bytes (the kernel property test: a third less time): it
// compiles several times faster and runs slower. Either tier computes the same bytes: WebAssembly
// fixes every integer and float result, a NaN's payload bits aside, whatever compiles it. Modules
// already compiled keep their code (README, "WebAssembly kernels"). scripts/bundle-cache.mjs
// records 'baseline' (V8's defaults) before the CLI bundle runs, so V8's flags stay as the process
// started: the code cache it makes is only taken under the same flags.
import { setFlagsFromString } from 'node:v8';

export type WasmTier = 'optimizing' | 'baseline';

const CHOSEN = Symbol.for('mcusim.wasmTier');
type Holder = { [CHOSEN]?: WasmTier };

/** Compile the kernel modules made from now on with `tier`. */
export function setWasmTier(tier: WasmTier): void {
  const eager = tier === 'optimizing';
  setFlagsFromString(eager ? '--no-liftoff' : '--liftoff');
  setFlagsFromString(eager ? '--no-wasm-lazy-compilation' : '--wasm-lazy-compilation');
  // --no-liftoff turned dynamic tier-up off by implication; --liftoff alone does not turn it back on.
  if (!eager) setFlagsFromString('--wasm-dynamic-tiering');
  (globalThis as Holder)[CHOSEN] = tier;
}

/** The tier this process compiles with: the one set last, else 'optimizing' (set now). */
export function ensureWasmTier(): WasmTier {
  const chosen = (globalThis as Holder)[CHOSEN];
  if (chosen !== undefined) return chosen;
  setWasmTier('optimizing');
  return 'optimizing';
}
