// What the page hands the user to take home (engine worker), each the file a CLI command writes:
//   tflm-kernels: `mcusim codegen OPT.tflite --tflm --out-dir DIR [--kernels K --cpu C]`, zipped
//   c-port:       `mcusim codegen OPT.tflite --out-dir DIR [--kernels K --cpu C]`, zipped
//   report:       `mcusim report MODEL --passes P --board B [--kernels K --cpu C] -o FILE.html`, with the
//                 page's own verification of the optimized file (the CLI's report runs its own)
// The optimized .tflite itself needs no work here: the page links the bytes optimize returned.
import { strToU8, zipSync } from 'fflate';
import type { Zippable } from 'fflate';
import type { VerifyReport } from '../api/index.ts';
import { reportVerification } from '../api/index.ts';
import { generateCProject, generateTflmKernels } from '../codegen/index.ts';
import type { GeneratedFile } from '../codegen/index.ts';
import type { Model } from '../ir/index.ts';
import { DEFAULT_PLANNER } from '../optimizer/index.ts';
import { collectReport, renderReportHtml } from '../report/index.ts';
import { getTarget } from '../sim/index.ts';
import { registryOf } from './cli-equivalents.ts';
import { fileStem } from './optimize-task.ts';
import type { Build, Download, DownloadKind } from './protocol.ts';

export interface DownloadInputs {
  readonly original: Model;
  readonly label: string;
  readonly optimized: Model;
  /** The optimized file's name (its stem names the generated code, as the CLI's file argument does). */
  readonly optimizedName: string;
  readonly passes: readonly string[];
  readonly build: Build;
  readonly verification: VerifyReport | null;
  readonly log: (line: string) => void;
}

/** A zip of `files` under one folder (the --out-dir the CLI would write). */
export function zipFiles(folder: string, files: readonly GeneratedFile[]): Uint8Array {
  const tree: Zippable = {};
  for (const f of files) tree[`${folder}/${f.path}`] = strToU8(f.text);
  return zipSync(tree, { level: 6 });
}

export function makeDownload(kind: DownloadKind, d: DownloadInputs): Download {
  const name = fileStem(d.optimizedName);
  // codegen reads the optimized file, report the original, each with --kernels given (kernelsForFile).
  const registry = kind === 'report' ? registryOf(d.build, d.original, d.label) : registryOf(d.build, d.optimized, d.optimizedName);
  switch (kind) {
    case 'tflm-kernels': {
      const k = generateTflmKernels(d.optimized, { modelName: name, registry });
      const sites = k.summary.sites.length === 0 ? 'no op needs a generated kernel (stock TFLM runs this file)' : k.summary.sites.map((s) => `op ${s.opIndex} ${s.kind}`).join(', ');
      return { fileName: `${name}-tflm-kernels.zip`, mime: 'application/zip', bytes: zipFiles(`${name}-tflm-kernels`, k.files), note: `${k.files.length} files; generated kernels: ${sites}` };
    }
    case 'c-port': {
      const p = generateCProject(d.optimized, { target: 'host', planner: DEFAULT_PLANNER, modelName: name, registry });
      return { fileName: `${name}-c-port.zip`, mime: 'application/zip', bytes: zipFiles(`${name}-c-port`, p.files), note: `${p.files.length} files; make -C ${name}-c-port host` };
    }
    case 'report': {
      const data = collectReport(d.original, { modelLabel: d.label, passes: d.passes, target: getTarget(d.build.board), log: d.log, registry });
      const html = renderReportHtml(data, d.verification === null ? null : reportVerification(d.verification));
      return { fileName: `${fileStem(d.label)}-report.html`, mime: 'text/html', bytes: strToU8(html), note: `passes ${d.passes.join(',')} on ${d.build.board}` };
    }
  }
}
