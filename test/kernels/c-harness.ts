// Test helper: a C99 program that runs emitted kernels on conformance setups inside a simulated
// arena (same offsets as the JS runtime) and prints every output tensor as hex, one per line.
import type { ConformanceSetup } from '../../src/sim/index.ts';
import type { CKernel } from '../../src/kernels/index.ts';
import { emitCKernel, emitCUnit, instantiateOp, prepareOp } from '../../src/kernels/index.ts';

const list = (xs: ArrayLike<number>): string => (xs.length ? Array.from(xs).join(', ') : '0');

export function cProgramFor(setups: readonly ConformanceSetup[], repeat = 1): string {
  const kernels: CKernel[] = setups.map((s) => emitCKernel(instantiateOp(s.graph, prepareOp(s.graph, 0), s.tensorOffsets)));
  const unit = emitCUnit(kernels);
  let data = '';
  let body = '';
  setups.forEach((s, i) => {
    const k = kernels[i] as CKernel;
    const words = Math.max(1, Math.ceil(s.arenaBytes / 4));
    data += `static int32_t arena${i}[${words}];\nstatic const int32_t p${i}[] = { ${list(k.params)} };\n`;
    const args = [`p${i}`];
    for (const a of k.arrays) {
      data += `static const int32_t a${i}_${a.name}[] = { ${list(a.values)} };\n`;
      args.push(`a${i}_${a.name}`);
    }
    for (const b of k.buffers) {
      const bind = b.binding;
      if (bind.offsetBytes === null) {
        const bytes = bind.data ?? new Uint8Array(0);
        data += `static const uint8_t c${i}_${b.name}[] = { ${list(bytes)} };\n`;
        args.push(`(const ${b.ctype}*)(const void*)c${i}_${b.name}`);
      } else {
        args.push(`(${b.isConst ? 'const ' : ''}${b.ctype}*)(void*)((uint8_t*)arena${i} + ${bind.offsetBytes})`);
      }
    }
    s.graph.inputs.forEach((t, j) => {
      const bytes = s.inputs[j] as Uint8Array;
      data += `static const uint8_t in${i}_${j}[] = { ${list(bytes)} };\n`;
      body += `  memcpy((uint8_t*)arena${i} + ${s.tensorOffsets[t]}, in${i}_${j}, ${bytes.length});\n`;
    });
    body += `  for (int r = 0; r < ${repeat}; ++r) ${unit.functionNames[i]}(${args.join(', ')});\n`;
    for (const t of s.graph.outputs) {
      const size = s.expected[s.graph.outputs.indexOf(t)]?.length ?? 0;
      body += `  dump((uint8_t*)arena${i} + ${s.tensorOffsets[t]}, ${size});\n`;
    }
  });
  return `${unit.source}
#include <stdio.h>
#include <string.h>
static void dump(const uint8_t* p, int n) { for (int i = 0; i < n; ++i) printf("%02x", p[i]); printf("\\n"); }
${data}
int main(void) {
${body}  return 0;
}
`;
}
