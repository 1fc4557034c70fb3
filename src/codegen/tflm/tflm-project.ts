// `generateTflmKernels`: the sources a user's own TFLM application links to run an mcusim-optimized
// file (issue 45, docs/deploy-tflm.md): every op stock TFLM cannot run as mcusim would (the custom
// ops MergeAccumulators / Spill / Fetching / FusedConv2D, TRANSPOSE_CONV ops whose metadata picks
// the scratch-free or int16-scratch form) becomes a site with a kernel generated from its spec,
// registered through AddMcusimOps (mcusim_ops.h); storage ops run over the C port's storage
// interface and devices (host file, RAM, STM32H7 internal flash / QSPI). Kernels are bound exactly
// as the simulator's runtime binds them (preparePlannedModel: the same instances, the same storage
// slots and block addresses). With a cmsis-nn registry (`--kernels cmsis-nn --cpu C`) every site's
// kernel is emitted from that registry's spec, the one `run --kernels cmsis-nn` runs and the plan
// was checked against, and TRANSPOSE_CONV is never replaced (stock cmsis_nn/transpose_conv.cc runs
// it). Pure: returns file texts.
import type { Graph, Model } from '../../ir/index.ts';
import { ModelError, readOfflinePlan } from '../../ir/index.ts';
import { REFERENCE_KERNELS, describeKernels, scratchRequests } from '../../kernels/index.ts';
import type { KernelRegistry } from '../../kernels/index.ts';
import type { StorageDevice } from '../../sim/index.ts';
import { getTflmArch, isReplacedTransposeConv, runsGeneratedKernel, runtimeArena } from '../../sim/index.ts';
import { DEFAULT_PLANNER, preparePlannedModel } from '../../optimizer/index.ts';
import type { GeneratedFile } from '../project.ts';
import { STORAGE_H, STORAGE_HOST_C, STORAGE_HOST_H, STORAGE_RAM_C, STORAGE_RAM_H } from '../storage-files.ts';
import { storageLayout } from '../storage-runtime.ts';
import { STORAGE_STM32H7_C } from '../storage-stm32h7.ts';
import { emitOpsHeader, emitOpsSource } from './glue-source.ts';
import type { TflmArenaFigure } from './glue-source.ts';
import type { SiteKind, TflmSite } from './site-source.ts';
import { SITE_KINDS, emitSiteSources, fileInputs, siteTensors } from './site-source.ts';

export interface TflmKernelsOptions {
  /** Name used in comments (default: the graph's name). */
  readonly modelName?: string;
  /** TinySeg Spill / Fetching device the blocks are laid out for (default nicla-vision internal flash). */
  readonly storage?: StorageDevice;
  /** MFV-compress spilled blocks (TinySeg §5.1), as the simulator's `compress`. */
  readonly compress?: boolean;
  /** The kernel library the application's TFLM links (default reference): the sites' specs. */
  readonly registry?: KernelRegistry;
}

export interface TflmKernelsSummary {
  /** Ops on generated kernels, in op order, with their custom code or builtin. */
  readonly sites: readonly { readonly opIndex: number; readonly kind: SiteKind }[];
  /** Resolver entries AddMcusimOps adds (MCUSIM_OPS_COUNT). */
  readonly registrations: number;
  readonly kernelFunctions: number;
  readonly storageSlots: number;
  /** The kernel library the sites were emitted for (`reference`, `cmsis-nn (cortex-m7: DSP)`). */
  readonly kernelsLabel: string;
}

export interface TflmKernels {
  readonly files: readonly GeneratedFile[];
  readonly summary: TflmKernelsSummary;
}

/** The ops that need generated kernels, each refused op reported (unknown custom ops). */
function checkOps(model: Model): void {
  const issues = model.graph.ops.flatMap((op, opIndex) =>
    op.kind === 'custom' ? [{ code: 'E_MODEL_UNSUPPORTED_OP' as const, message: `codegen --tflm has no kernel for custom op '${op.customCode}'`, opIndex, opKind: op.kind }] : [],
  );
  if (issues.length) throw ModelError.fromIssues(issues);
}

/** TFLM's arena for the file with these kernels linked, per build (a CMSIS-NN build is a Cortex-M one). */
function tflmArenas(pm: { readonly graph: Graph; readonly plan: { readonly peakBytes: number }; readonly requests: readonly unknown[] }, model: Model, registry: KernelRegistry): TflmArenaFigure[] {
  const archs = registry.library === 'reference' ? (['cortex-m', 'host64'] as const) : (['cortex-m'] as const);
  return archs.map((a) => {
    const r = runtimeArena(pm.graph, { plannedBytes: pm.plan.peakBytes, bufferCount: pm.requests.length }, getTflmArch(a), 'tflm', { offlineOffsets: readOfflinePlan(model), registry });
    return { arch: a, totalBytes: r.totalBytes, declareBytes: r.declareBytes };
  });
}

export function generateTflmKernels(model: Model, options: TflmKernelsOptions = {}): TflmKernels {
  checkOps(model);
  const graph = model.graph;
  const modelName = options.modelName ?? (graph.name || 'model');
  const registry = options.registry ?? REFERENCE_KERNELS;
  const pm = preparePlannedModel(model, {
    planner: DEFAULT_PLANNER,
    registry,
    ...(options.storage ? { storage: options.storage } : {}),
    ...(options.compress ? { compress: true } : {}),
  });
  const storage = pm.runtime.spillStore === null ? null : storageLayout(pm.graph, pm.runtime.spillStore, pm.scratchOffsets);
  const sites: TflmSite[] = [];
  pm.graph.ops.forEach((op, opIndex) => {
    if (!runsGeneratedKernel(op, registry) || op.kind === 'custom') return;
    const kind = (isReplacedTransposeConv(op, registry) ? 'transposeConv' : op.kind) as SiteKind;
    const instance = pm.runtime.instances[opIndex];
    if (instance === undefined) throw new ModelError('E_MODEL_UNSUPPORTED_OP', `op ${opIndex} (${op.kind}) has no kernel instance`);
    sites.push({
      opIndex, kind, inputs: fileInputs(op), outputs: [...op.outputs], scratchBytes: scratchRequests(pm.graph, opIndex, registry),
      tensors: siteTensors(op, instance, pm.graph), instance,
    });
  });
  const kinds = SITE_KINDS.filter((k) => sites.some((s) => s.kind === k));
  const src = emitSiteSources(pm.graph, modelName, sites, storage, describeKernels(registry));
  const storageFiles: GeneratedFile[] = [
    { path: 'mcusim_storage.h', text: STORAGE_H },
    { path: 'mcusim_storage_ram.h', text: STORAGE_RAM_H },
    { path: 'mcusim_storage_ram.c', text: STORAGE_RAM_C },
    { path: 'mcusim_storage_host.h', text: STORAGE_HOST_H },
    { path: 'mcusim_storage_host.c', text: STORAGE_HOST_C },
    { path: 'mcusim_storage_stm32h7.c', text: STORAGE_STM32H7_C },
  ];
  const files: GeneratedFile[] = [
    { path: 'mcusim_ops.h', text: emitOpsHeader(modelName, kinds, storage !== null, tflmArenas(pm, model, registry)) },
    { path: 'mcusim_ops.cc', text: emitOpsSource(kinds) },
    { path: 'mcusim_kernels.h', text: src.header },
    { path: 'mcusim_kernels.c', text: src.source },
    ...storageFiles,
  ];
  return {
    files,
    summary: {
      sites: sites.map((s) => ({ opIndex: s.opIndex, kind: s.kind })),
      registrations: kinds.length,
      kernelFunctions: src.kernelFunctions,
      storageSlots: storage?.slots.length ?? 0,
      kernelsLabel: describeKernels(registry),
    },
  };
}
