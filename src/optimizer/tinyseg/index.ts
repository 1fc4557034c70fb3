// TinySeg (LCTES 2024): tensor spilling to storage over cold ranges (§4.1-4.2), partial spilling
// (§4.2), fused fetching (§4.3), temporary-tensor quantization (§5), the `tinyseg` pass, the Table 5
// latency table and the Figure 14 partial-spilling sweep (§6). This index is the folder's only door.
export * from './cold-ranges.ts';
export * from './spill-transform.ts';
export * from './partial-spill.ts';
export * from './fused-fetch.ts';
export * from './scratch-quant.ts';
export * from './tinyseg-pass.ts';
export * from './tinyseg-latency-table.ts';
export * from './spill-sweep.ts';
export * from './spill-sweep-svg.ts';
