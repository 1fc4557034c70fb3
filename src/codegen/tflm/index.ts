// `codegen --tflm` (issue 45, docs/deploy-tflm.md): TFLM registrations of mcusim's ops for a user's
// own TFLM application, kernels generated from the specs.
export { generateTflmKernels } from './tflm-project.ts';
export type { TflmKernels, TflmKernelsOptions, TflmKernelsSummary } from './tflm-project.ts';
export { SITE_KINDS } from './site-source.ts';
export type { SiteKind } from './site-source.ts';
