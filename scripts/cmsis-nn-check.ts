// Per-row check against the real TFLM + CMSIS-NN build (cmsis-nn-m7/models.json of $MCUSIM_DATA, default ../shared/oracle):
// for each row, mcusim's cmsis-nn whole arena (total and persistent part) against the build's
// arena_used_bytes / persistent_used_bytes, and (unless --no-run) the seed-1 outputs against the
// build's. Rows whose model has a conv-family op (conv2d, depthwise, transposeConv) are marked
// `conv`: their arena needs the cmsis-conv specs. Run: npx tsx scripts/cmsis-nn-check.ts [--cpu C]
// [--no-run] [--filter SUBSTRING]. Exit 1 when a non-conv row mismatches.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspectModel, kernelRegistry, loadModel, runModel, zooModel } from '../src/index.ts';
import { getTflmArch } from '../src/sim/index.ts';

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => { const i = args.indexOf(name); return i < 0 ? undefined : args[i + 1]; };
const root = process.env['MCUSIM_DATA'] ?? join(import.meta.dirname, '..', '..', 'shared', 'oracle');
const dir = join(root, 'cmsis-nn-m7');
const rows = JSON.parse(readFileSync(join(dir, 'models.json'), 'utf8')).models as {
  name: string; model: string; m7_cmsis_nn: { arena_used_bytes: number; persistent_used_bytes: number };
}[];
const registry = kernelRegistry('cmsis-nn', flag('--cpu') ?? 'cortex-m7');
const arch = getTflmArch('cortex-m');
const CONV = new Set(['conv2d', 'depthwiseConv2d', 'transposeConv']);
const tally = { arena: 0, persistent: 0, outputs: 0, n: 0, bad: 0 };
for (const r of rows) {
  if (flag('--filter') !== undefined && !r.name.includes(flag('--filter') as string)) continue;
  tally.n++;
  const model = r.model.startsWith('zoo:') ? zooModel(r.model.slice(4)) : loadModel(readFileSync(join(root, r.model)));
  const conv = model.graph.ops.some((o) => CONV.has(o.kind));
  let line = `${r.name}${conv ? ' conv' : ''}`;
  let ok = true;
  try {
    const a = inspectModel(model, 'tflm-greedy', {}, { arch, kernels: registry }).report.arena;
    const arenaOk = a.totalBytes === r.m7_cmsis_nn.arena_used_bytes;
    const persOk = a.persistentBytes === r.m7_cmsis_nn.persistent_used_bytes;
    tally.arena += arenaOk ? 1 : 0;
    tally.persistent += persOk ? 1 : 0;
    line += ` arena ${arenaOk ? 'ok' : `${a.totalBytes}/${r.m7_cmsis_nn.arena_used_bytes}`} persistent ${persOk ? 'ok' : `${a.persistentBytes}/${r.m7_cmsis_nn.persistent_used_bytes}`}`;
    ok = arenaOk && persOk;
  } catch (e) {
    line += ` arena ERROR ${e instanceof Error ? e.message : String(e)}`;
    ok = false;
  }
  if (!args.includes('--no-run')) {
    const seed = join(dir, r.name, 'seed1');
    const inputs = []; for (let i = 0; existsSync(join(seed, `input${i}.bin`)); i++) inputs.push(new Uint8Array(readFileSync(join(seed, `input${i}.bin`))));
    try {
      const out = runModel(model, { inputs, kernels: 'cmsis-nn', cpu: registry.cpu ?? undefined }).outputs;
      const same = out.every((b, i) => Buffer.from(b).equals(readFileSync(join(seed, `output${i}.bin`))));
      tally.outputs += same ? 1 : 0;
      line += ` outputs ${same ? 'ok' : 'DIFFER'}`;
      ok &&= same;
    } catch (e) {
      line += ` outputs ERROR ${e instanceof Error ? e.message : String(e)}`;
      ok = false;
    }
  }
  if (!ok && !conv) tally.bad++;
  console.log(line);
}
console.log(`rows ${tally.n}: arena exact ${tally.arena}, persistent exact ${tally.persistent}, outputs identical ${tally.outputs}; non-conv rows wrong: ${tally.bad}`);
process.exitCode = tally.bad > 0 ? 1 : 0;
