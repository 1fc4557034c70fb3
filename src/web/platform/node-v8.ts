// The page's stand-in for `node:v8` (scripts/build.mjs maps the import here in the web bundle only):
// src/kernels/wasm-tier.ts asks V8 for eager optimized compiles of the kernel modules, a Node
// process flag a web page cannot set. In the browser the engine's own tiering compiles them; either
// tier computes the same bytes (wasm-tier.ts says why), so only the first run's speed differs.

export function setFlagsFromString(_flags: string): void {
  // Nothing to set: see the header.
}
