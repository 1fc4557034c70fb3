// Replays every row of cmsis-nn-m7/models.json of $MCUSIM_DATA (default ../shared/oracle) (the real TFLM + CMSIS-NN build on a
// Cortex-M7) with its seed-1 inputs and compares mcusim's outputs with the build's, byte for byte,
// including the DMO / auto files whose outputs the build got wrong, with the cmsis-nn specs for
// --cpu (default cortex-m7, the build's). The plan is run as the build runs it, unchecked (a
// reference-kernel DMO plan may exceed CMSIS-NN's safe overlap: that is what makes the build's
// outputs wrong); with --trace the memory tracer reports the clobbers it sees. Usage:
//   npx tsx scripts/cmsis-nn-oracle-outputs.ts [--trace] [--cpu C] [oracleDir] [nameFilter]
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { kernelRegistry, loadModel } from '../src/index.ts';
import { preparePlannedModel, runPlanned, tracerFor } from '../src/optimizer/index.ts';

interface Row { readonly name: string; readonly model: string; readonly inputs: number; readonly outputs_equal_original?: boolean }

const trace = process.argv.includes('--trace');
const cpuAt = process.argv.indexOf('--cpu');
const registry = kernelRegistry('cmsis-nn', cpuAt < 0 ? 'cortex-m7' : process.argv[cpuAt + 1]);
const args = process.argv.slice(2).filter((a, i, all) => a !== '--trace' && a !== '--cpu' && all[i - 1] !== '--cpu');
const dir = args[0] || join(process.env['MCUSIM_DATA'] ?? join(import.meta.dirname, '../../shared/oracle'), 'cmsis-nn-m7');
const filter = args[1] ?? '';
const rows = (JSON.parse(readFileSync(join(dir, 'models.json'), 'utf8')) as { models: Row[] }).models.filter((r) => r.name.includes(filter));
let pass = 0;
const failures: string[] = [];
const skipped: string[] = [];
for (const row of rows) {
  const modelPath = join(dir, '..', row.model);
  const seed = join(dir, row.name, 'seed1');
  if (!existsSync(modelPath) || !existsSync(join(seed, 'output0.bin'))) {
    skipped.push(row.name);
    continue;
  }
  const tag = row.outputs_equal_original === false ? ' (build output wrong)' : '';
  try {
    const model = loadModel(new Uint8Array(readFileSync(modelPath)), row.name);
    const inputs = Array.from({ length: row.inputs }, (_, i) => new Uint8Array(readFileSync(join(seed, `input${i}.bin`))));
    const pm = preparePlannedModel(model, { verify: false, registry, ...(trace ? { traceShadow: true } : {}) });
    const tracer = trace ? tracerFor(pm) : null;
    const { outputs } = runPlanned(pm, { inputs, ...(tracer ? { trace: tracer.sink } : {}) });
    tracer?.finish();
    const clobbers = tracer ? tracer.violations().filter((v) => v.kind === 'clobber') : [];
    if (clobbers.length > 0) {
      const v = clobbers[0]!;
      console.log(`TRACE ${row.name}${tag}: ${clobbers.length} clobber report(s), first: ${JSON.stringify(v).slice(0, 300)}`);
    }
    const bad = outputs.flatMap((o, i) => {
      const want = new Uint8Array(readFileSync(join(seed, `output${i}.bin`)));
      const diff = o.reduce((n, b, j) => n + (b === want[j] ? 0 : 1), 0) + Math.abs(o.length - want.length);
      return diff === 0 ? [] : [`output${i}: ${diff} of ${want.length} bytes differ`];
    });
    if (bad.length === 0) pass++;
    else failures.push(`${row.name}${tag}: ${bad.join(', ')}`);
  } catch (e) {
    failures.push(`${row.name}${tag}: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
  }
}
console.log(`${pass} of ${rows.length - skipped.length} rows byte-identical (${skipped.length} skipped: model or outputs not in the oracle folder)`);
for (const f of failures) console.log(`FAIL ${f}`);
for (const s of skipped) console.log(`SKIP ${s}`);
process.exitCode = failures.length === 0 ? 0 : 1;
