// Public surface of the instruction model: block counts per op and compiled code path.
export * from './blocks.ts';
export * from './op-blocks.ts';
export * from './block-costs.ts';
export * from './builds.ts';
export * from './op-instructions.ts';
export * from './libc-counts.ts';
export * from './cmsis-dsp-conv.ts';
export * from './cmsis-dsp-depthwise.ts';
