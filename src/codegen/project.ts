// `generateCProject`: a whole planned model as a self-contained C99 project (DESIGN.md §1, §9). Plans
// the arena as `mcusim run` does (buffer requests honouring OfflineMemoryAllocation metadata -> named
// planner -> verifyPlan), binds every op's kernel at the planned offsets (Spill / Fetching through
// their planned I/O buffers and the simulator's device layout) and emits model C and the fixed driver,
// board and storage files. Kernels come from the chosen library's specs (reference or a CMSIS-NN code
// path, plain C); the files name it. Pure: returns file texts; writing them is the CLI's job.
import type { Graph, Issue, Model } from '../ir/index.ts';
import type { PlannedModel } from '../optimizer/index.ts';
import { byteSize, InternalError, ModelError, PlanError, readPlanKernels, UsageError } from '../ir/index.ts';
import type { StorageDevice } from '../sim/index.ts';
import { describeKernels, kernelSpecOf, REFERENCE_KERNELS } from '../kernels/index.ts';
import type { KernelRegistry } from '../kernels/index.ts';
import { DEFAULT_PLANNER, getPlanner, preparePlannedModel } from '../optimizer/index.ts';
import { MPS2_AN500_LD, PLATFORM_SEMIHOST_C, SEMIHOST_H, STARTUP_CORTEX_M7_C } from './board-files.ts';
import { MAIN_C, PLATFORM_H, PLATFORM_HOST_C } from './driver-files.ts';
import type { CodegenTarget } from './makefile.ts';
import { CODEGEN_TARGETS, emitMakefile, emitReadme } from './makefile.ts';
import { emitModelSources } from './model-source.ts';
import { STORAGE_H, STORAGE_HOST_C, STORAGE_HOST_H, STORAGE_RAM_C, STORAGE_RAM_H, STORAGE_TEST_C } from './storage-files.ts';
import { storageLayout } from './storage-runtime.ts';
import { STORAGE_STM32H7_C } from './storage-stm32h7.ts';

export interface CodegenOptions {
  /** Default goal of the Makefile; both targets are always generated. Default host. */
  readonly target?: CodegenTarget;
  /** Planner name (see PLANNERS); default tflm-greedy, which keeps offline (optimized) offsets. */
  readonly planner?: string;
  /** Name used in comments and the README (default: the graph's name). */
  readonly modelName?: string;
  /** TinySeg Spill / Fetching device (default: the runtime's, nicla-vision internal flash). */
  readonly storage?: StorageDevice;
  /** MFV-compress spilled blocks (TinySeg §5.1), as the simulator's `compress`. */
  readonly compress?: boolean;
  /** The kernel library whose specs are emitted (its scratch planned; default reference). */
  readonly registry?: KernelRegistry;
}

export interface GeneratedFile {
  /** Path relative to the project folder, '/'-separated. */
  readonly path: string;
  readonly text: string;
}

export interface CodegenSummary {
  readonly target: CodegenTarget;
  readonly planner: string;
  readonly peakBytes: number;
  /** Bytes of the static C arena (peak + variable tensors, at least 16). */
  readonly arenaBytes: number;
  readonly ops: number;
  readonly kernelFunctions: number;
  readonly constantBytes: number;
  readonly inputBytes: readonly number[];
  readonly outputBytes: readonly number[];
  /** Spill slots (TinySeg storage ops); 0 when none. */
  readonly storageSlots: number;
  /** Each slot's block on the device: header (16 B) then payload, at `addr`. */
  readonly storageBlocks: readonly { readonly slot: number; readonly addr: number; readonly sizeBytes: number }[];
  /** Bytes per transfer through a storage op's planned I/O buffer (0 without storage ops). */
  readonly ioUnitBytes: number;
  /** The kernel library whose specs the C follows, and the CPU picking its CMSIS-NN code path (null: reference). */
  readonly kernels: string;
  readonly cpu: string | null;
  /** How the files name it: `reference` or `cmsis-nn (cortex-m7: DSP)`. */
  readonly kernelsDescription: string;
  /**
   * Set when the file's plan is safe for another library's access order only (plan.libraryHazard):
   * the port computes what that build computes, corrupted, as `mcusim run` does.
   */
  readonly planHazard?: string;
}

export interface CProject {
  readonly files: readonly GeneratedFile[];
  readonly summary: CodegenSummary;
}

/** Every op the C port cannot emit, as issues (all reported at once). */
export function codegenIssues(graph: Graph, registry?: KernelRegistry): Issue[] {
  const issues: Issue[] = [];
  graph.ops.forEach((op, opIndex) => {
    if (op.kind === 'custom') {
      issues.push({ code: 'E_MODEL_UNSUPPORTED_OP', message: `codegen does not support custom op '${op.customCode}'`, opIndex, opKind: op.kind });
    } else if (kernelSpecOf(op.kind, registry) === undefined) {
      issues.push({ code: 'E_MODEL_UNSUPPORTED_OP', message: `codegen does not support op kind '${op.kind}' (no kernel spec)`, opIndex, opKind: op.kind });
    }
  });
  return issues;
}

export function parseCodegenTarget(text: string): CodegenTarget {
  const t = CODEGEN_TARGETS.find((x) => x === text);
  if (t === undefined) throw new UsageError(`unknown codegen target '${text}' (known: ${CODEGEN_TARGETS.join(', ')})`);
  return t;
}

/** Plans `model` (options.planner) and emits its C project. */
export function generateCProject(model: Model, options: CodegenOptions = {}): CProject {
  const planner = options.planner ?? DEFAULT_PLANNER;
  getPlanner(planner);
  const issues = codegenIssues(model.graph, options.registry);
  if (issues.length) throw ModelError.fromIssues(issues);
  const storage = { ...(options.storage ? { storage: options.storage } : {}), ...(options.compress ? { compress: true } : {}) };
  let pm: PlannedModel;
  try {
    pm = preparePlannedModel(model, { planner, ...storage, ...(options.registry ? { registry: options.registry } : {}) });
  } catch (e) {
    throw withPlanKernelsHint(e, model, options.registry ?? REFERENCE_KERNELS);
  }
  return emitCProject(pm, options);
}

/**
 * A file's offline plan that overlaps buffers unsafely for the chosen kernels (E_PLAN_OVERLAP)
 * while its metadata says it was made for another library: the same error, naming the flags
 * that generate the port for the library it was planned for.
 */
function withPlanKernelsHint(e: unknown, model: Model, registry: KernelRegistry): unknown {
  if (!(e instanceof PlanError) || e.code !== 'E_PLAN_OVERLAP') return e;
  const k = readPlanKernels(model);
  if (k.library === registry.library && k.cpu === registry.cpu) return e;
  const flags = `--kernels ${k.library}${k.cpu === null ? '' : ` --cpu ${k.cpu}`}`;
  return new PlanError('E_PLAN_OVERLAP', `${e.message}; the file was planned for ${k.library}${k.cpu === null ? '' : ` (${k.cpu})`} kernels: generate its port with ${flags}`);
}

/** The planned model's kernels must be `registry`'s specs: the files name that library. */
function checkRegistry(pm: PlannedModel, registry: KernelRegistry): void {
  for (const p of pm.runtime.prepared) {
    const kind = pm.graph.ops[p.opIndex]?.kind;
    if (kind === undefined || kind === 'custom' || kernelSpecOf(kind, registry) !== p.spec) {
      throw new InternalError(`op ${p.opIndex} (${kind ?? '?'}) was prepared with another kernel library than ${describeKernels(registry)}`);
    }
  }
}

/** The C project of an already planned model (the same plan the simulator runs). */
/** `options.registry` names the library `pm` was prepared with (default reference; checked). */
export function emitCProject(pm: PlannedModel, options: Omit<CodegenOptions, 'planner' | 'storage' | 'compress'> = {}): CProject {
  const target = options.target ?? 'host';
  const { graph } = pm;
  const registry = options.registry ?? REFERENCE_KERNELS;
  const issues = codegenIssues(graph, registry);
  if (issues.length) throw ModelError.fromIssues(issues);
  checkRegistry(pm, registry);
  const kernels = describeKernels(registry);
  const hazard = pm.plan.libraryHazard;
  const modelName = options.modelName ?? (graph.name || 'model');
  const storage = pm.runtime.spillStore === null ? null : storageLayout(graph, pm.runtime.spillStore, pm.scratchOffsets);
  const src = emitModelSources({
    graph,
    modelName,
    planner: pm.plan.planner,
    peakBytes: pm.plan.peakBytes,
    arenaBytes: pm.arenaBytes,
    tensorOffsets: pm.tensorOffsets,
    instances: pm.runtime.instances,
    storage,
    kernels,
    ...(hazard !== undefined ? { planHazard: hazard } : {}),
  });
  const arenaBytes = Math.max(pm.arenaBytes, 16);
  const files: GeneratedFile[] = [
    { path: 'Makefile', text: emitMakefile(target) },
    {
      path: 'README.md',
      text: emitReadme({
        modelName, planner: pm.plan.planner, peakBytes: pm.plan.peakBytes, arenaBytes, inputs: graph.inputs.length, outputs: graph.outputs.length,
        kernels, library: registry.library, cpu: registry.cpu, ...(hazard !== undefined ? { planHazard: hazard } : {}),
      }),
    },
    { path: 'src/model.h', text: src.header },
    { path: 'src/model.c', text: src.model },
    { path: 'src/model_data.c', text: src.data },
    { path: 'src/platform.h', text: PLATFORM_H },
    { path: 'src/main.c', text: MAIN_C },
    { path: 'src/platform_host.c', text: PLATFORM_HOST_C },
    { path: 'src/semihost.h', text: SEMIHOST_H },
    { path: 'src/platform_semihost.c', text: PLATFORM_SEMIHOST_C },
    { path: 'src/startup_cortex_m7.c', text: STARTUP_CORTEX_M7_C },
    { path: 'src/mps2_an500.ld', text: MPS2_AN500_LD },
    { path: 'src/mcusim_storage.h', text: STORAGE_H },
    { path: 'src/mcusim_storage_host.h', text: STORAGE_HOST_H },
    { path: 'src/mcusim_storage_host.c', text: STORAGE_HOST_C },
    { path: 'src/mcusim_storage_ram.h', text: STORAGE_RAM_H },
    { path: 'src/mcusim_storage_ram.c', text: STORAGE_RAM_C },
    { path: 'src/mcusim_storage_stm32h7.c', text: STORAGE_STM32H7_C },
    { path: 'src/storage_test.c', text: STORAGE_TEST_C },
  ];
  const bytesOf = (t: number): number => {
    const x = graph.tensors[t];
    return x ? byteSize(x.dtype, x.shape) : 0;
  };
  return {
    files,
    summary: {
      target,
      planner: pm.plan.planner,
      peakBytes: pm.plan.peakBytes,
      arenaBytes,
      ops: graph.ops.length,
      kernelFunctions: src.kernelFunctions,
      constantBytes: src.constantBytes,
      inputBytes: graph.inputs.map(bytesOf),
      outputBytes: graph.outputs.map(bytesOf),
      storageSlots: storage?.slots.length ?? 0,
      storageBlocks: (storage?.slots ?? []).map((b) => ({ slot: b.slot, addr: b.addr, sizeBytes: b.sizeBytes })),
      ioUnitBytes: storage?.ioUnitBytes ?? 0,
      kernels: registry.library,
      cpu: registry.cpu,
      kernelsDescription: kernels,
      ...(hazard !== undefined ? { planHazard: hazard } : {}),
    },
  };
}
