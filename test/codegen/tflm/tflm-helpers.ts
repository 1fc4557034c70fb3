// Helpers for the `codegen --tflm` tests: optimized models through .tflite (as a user's file), the
// generated folder written out, and the compile flags TFLM 90b983c's Makefile uses for its host
// build (the generated C++ must see the same TfLiteTensor), for the compile against stand-in headers.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { TflmKernels } from '../../../src/codegen/index.ts';
import type { Model } from '../../../src/ir/index.ts';
import { buildZooModel, exportTflite, importTflite } from '../../../src/ir/index.ts';
import { runPipeline } from '../../../src/optimizer/index.ts';

/** A zoo model optimized by `passes`, exported and re-imported (the file a user deploys), with its bytes. */
export function optimizedFile(zoo: string, passes: readonly string[]): { readonly model: Model; readonly bytes: Uint8Array } {
  const bytes = exportTflite(runPipeline(buildZooModel(zoo), passes, { flags: {} }).model);
  return { model: importTflite(bytes), bytes };
}

export function writeKernels(kernels: TflmKernels, dir: string): void {
  for (const f of kernels.files) {
    mkdirSync(dirname(join(dir, f.path)), { recursive: true });
    writeFileSync(join(dir, f.path), f.text);
  }
}

/** TFLM's host CXXFLAGS that change types or code generation (its Makefile). */
export const TFLM_CXXFLAGS = [
  '-std=c++17', '-fno-rtti', '-fno-exceptions', '-fno-threadsafe-statics', '-DTF_LITE_STATIC_MEMORY', '-DTF_LITE_DISABLE_X86_NEON',
  '-Wall', '-Wextra', '-Wno-unused-parameter', '-Werror',
];
