// `node --import tsx scripts/fit-latency.ts [CSV]` (or `npm run fit:latency`): fits the one constant per
// (core family group, library, build) of src/sim/latency/kernel-cost/family-constants.ts from the MLPerf Tiny
// CSV (default: the published cells mcusim ships, sim/latency/mlperf-tiny-data.ts; gated cells only, as
// the acceptance script gates them), plus the Cortex-M7 constant from TinySeg Table 5 (1190 ms), and
// prints them with their sources. Rerunnable; the shipped table is these numbers.
import { readFileSync } from 'node:fs';
import type { FitPoint } from '../src/optimizer/index.ts';
import { TINYENGINE_H743, TINYENGINE_PROXY, fitGroups, fitM7, fitTinySegM7, mlperfZooModels, parseLatencyCsv, rawCycles, tinyengineCyclesPerMac } from '../src/optimizer/index.ts';
import { MLPERF_TINY_OPEN_CSV, getTarget } from '../src/sim/index.ts';

const csvFile = process.argv[2];
const csv = csvFile ?? 'the packaged MLPerf Tiny cells';
const models = mlperfZooModels();
const points: FitPoint[] = [];
for (const c of parseLatencyCsv(csvFile === undefined ? MLPERF_TINY_OPEN_CSV : readFileSync(csvFile, 'utf8'))) {
  if (!c.gated || c.board === null) continue;
  const t = getTarget(c.board);
  points.push({ board: t.name, family: t.core.family, raw: rawCycles(models[c.bench].graph, t, c.engine), target: t, measuredMs: c.measuredMs });
}
console.log(`fit from ${csv}: ${points.length} gated cells`);
for (const [group, f] of Object.entries(fitGroups(points))) {
  console.log(`  ${group} cmsis-nn: ${f.value.toFixed(6)}  (${f.cells} cells on ${f.boards.join(', ')})`);
}
const te = `tinyengine README STM32H743 table, ${TINYENGINE_H743.length} nets, through zoo:${TINYENGINE_PROXY} on nucleo-h743zi2`;
const m7 = fitM7('cmsis-nn');
const m7Ref = fitM7('reference');
console.log(`  cortex-m7 cmsis-nn: ${m7.toFixed(6)}  (${te}: ${tinyengineCyclesPerMac('cmsis-nn').toFixed(2)} cycles per MAC)`);
console.log(`  cortex-m7 reference: ${m7Ref.toFixed(6)}  (${te}: ${tinyengineCyclesPerMac('reference').toFixed(2)} cycles per MAC)`);
const m7Os = fitTinySegM7();
console.log(`  cortex-m7 -Os build cmsis-nn: ${m7Os.toFixed(6)}  (TinySeg Table 5: zoo:tiny-unet on nicla-vision, 1190 ms)`);
console.log(`  cortex-m7 -Os build reference: ${(m7Ref * m7Os / m7).toFixed(6)}  (the reference constant x the -Os / vendor-build CMSIS-NN ratio; no measurement)`);
console.log('  cortex-m0plus, cortex-m55/m85: 1 (no measurement of the group: TRM timings alone); the other groups\' reference library takes their CMSIS-NN constant');
