// Helpers for the `codegen --tflm` tests: optimized models through .tflite (as a user's file), the
// generated folder written out, a TFLM tree found through MCUSIM_TFLM_DIR, and the compile flags
// TFLM's own Makefile uses for its host build (the generated C++ must see the same TfLiteTensor).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
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

/** The TFLM tree named by MCUSIM_TFLM_DIR, or null (tests then say loudly that they skipped). */
export function tflmTree(): string | null {
  const dir = process.env['MCUSIM_TFLM_DIR'];
  if (dir === undefined || dir === '') return null;
  return existsSync(join(dir, 'tensorflow/lite/micro/micro_interpreter.h')) ? dir : null;
}

/** TFLM's gen/ folder prefix of scripts/build-tflm.sh's host and Cortex-M7 (MCUSIM_TFLM_TARGET=cortex-m7) builds. */
export const TFLM_GEN: Readonly<Record<'host64' | 'cortex-m', string>> = { host64: 'linux_x86_64_default', 'cortex-m': 'cortex_m_generic_cortex-m7+fp_default' };

/**
 * libtensorflow-microlite.a of the build scripts/build-tflm.sh made in `tree` for `arch` and kernel
 * library (cmsis-nn: MCUSIM_TFLM_KERNEL_LIB=cmsis-nn, Cortex-M7 only, gen/..._cmsis_nn_gcc), or null.
 */
export function microliteLib(tree: string, arch: 'host64' | 'cortex-m' = 'host64', kernels: 'reference' | 'cmsis-nn' = 'reference'): string | null {
  const lib = join(tree, 'gen', `${TFLM_GEN[arch]}${kernels === 'cmsis-nn' ? '_cmsis_nn' : ''}_gcc`, 'lib/libtensorflow-microlite.a');
  return existsSync(lib) ? lib : null;
}

/** Include paths of TFLM and its downloads (TFLM's Makefile INCLUDES). */
export function tflmIncludes(tree: string): string[] {
  const dl = join(tree, 'tensorflow/lite/micro/tools/make/downloads');
  return [`-I${tree}`, `-I${dl}`, `-I${join(dl, 'gemmlowp')}`, `-I${join(dl, 'flatbuffers/include')}`, `-I${join(dl, 'ruy')}`];
}

/** TFLM's host CXXFLAGS that change types or code generation (tools/make/Makefile). */
export const TFLM_CXXFLAGS = [
  '-std=c++17', '-fno-rtti', '-fno-exceptions', '-fno-threadsafe-statics', '-DTF_LITE_STATIC_MEMORY', '-DTF_LITE_DISABLE_X86_NEON',
  '-Wall', '-Wextra', '-Wno-unused-parameter', '-Werror',
];
