// `npm run demo`: mcusim's main job on the built-in Tiny U-Net, step by step through the CLI:
// plan the arena as TFLM does, shrink it with TinySeg, prove the optimized model bit-exact under
// the memory tracer (storage round trip included), and estimate its latency on the Nicla Vision.
// Files go to a fresh temporary folder, which is printed and left for inspection.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'mcusim.mjs');
const out = mkdtempSync(join(tmpdir(), 'mcusim-demo-'));
const optimized = join(out, 'tiny-unet-tinyseg.tflite');

const steps = [
  ['1/4 plan zoo:tiny-unet exactly as TFLM does (arena over time)', ['inspect', 'zoo:tiny-unet', '--ascii']],
  ['2/4 shrink it with TinySeg (scratch, spilling, fused fetching)', ['optimize', 'zoo:tiny-unet', '--passes', 'tinyseg', '-o', optimized, '--svg-after', join(out, 'plan-after.svg')]],
  ['3/4 prove it: same output bytes, clean memory trace, flash round trip', ['verify', 'zoo:tiny-unet', optimized, '--seeds', '3']],
  ['4/4 latency on the Nicla Vision (internal flash, compression, async erase)', ['latency', optimized, '--storage', 'internal', '--compress', '--async-erase', '--svg', join(out, 'timeline.svg')]],
];

for (const [title, args] of steps) {
  process.stdout.write(`\n=== ${title}\n$ mcusim ${args.join(' ')}\n`);
  const r = spawnSync(process.execPath, [bin, ...args], { stdio: 'inherit' });
  if (r.status !== 0) {
    process.stderr.write(`demo step failed (exit ${r.status ?? 'signal'})\n`);
    process.exit(r.status ?? 1);
  }
}
process.stdout.write(`\nfiles (optimized model, plan and timeline pictures): ${out}\n`);
