// Fused tiling (fused depthwise tiling paper): block-based path discovery (§4), fused depthwise
// tiling FDT (§3, §4) and fused feature-map tiling FFMT (§2, Fig. 1, §4) graph transforms, their shared
// graph-editing helpers, and the `fdt` / `ffmt` / `tiling` passes. This index is the folder's only door.
export * from './tiling-graph.ts';
export * from './fdt-transform.ts';
export * from './ffmt-transform.ts';
export * from './tiling-paths.ts';
export * from './tiling-pass.ts';
