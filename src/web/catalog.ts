// The choices the page offers (zoo models, boards, kernel libraries, CPUs, engines, passes), read
// from the library's own tables. scripts/build.mjs runs this once at build time and compiles the
// result into main.js (MCUSIM_CATALOG), so the page's selects are filled before its load event,
// without waiting for the engine worker.
import { zooModels } from '../api/index.ts';
import { CORTEX_M_CPUS, DEFAULT_CMSIS_NN_CPU, KERNEL_LIBRARY_NAMES } from '../kernels/index.ts';
import { passNames } from '../optimizer/index.ts';
import { DEFAULT_TARGET_NAME, ENGINES, getTarget, listTargets } from '../sim/index.ts';
import type { Catalog } from './protocol.ts';

export function pageCatalog(): Catalog {
  return {
    zoo: zooModels().map((z) => ({ name: z.name, description: z.description })),
    boards: listTargets().map((name) => {
      const t = getTarget(name);
      return { name, description: t.description, core: t.core.family };
    }),
    defaultBoard: DEFAULT_TARGET_NAME,
    kernels: [...KERNEL_LIBRARY_NAMES],
    cpus: Object.keys(CORTEX_M_CPUS),
    defaultCpu: DEFAULT_CMSIS_NN_CPU,
    engines: [...ENGINES],
    passes: passNames(),
  };
}
