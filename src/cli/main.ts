// mcusim's command line: builds the commander program (one file per command under commands/),
// runs it, and turns every outcome into an exit code; see errors.ts for the mapping.
import { Command, CommanderError } from 'commander';
import { registerCodegen } from './commands/codegen.ts';
import { registerConformance } from './commands/conformance.ts';
import { registerInspect } from './commands/inspect.ts';
import { registerLatency } from './commands/latency.ts';
import { registerSweep } from './commands/sweep.ts';
import { registerRun } from './commands/run.ts';
import { registerOptimize } from './commands/optimize.ts';
import { registerVerify } from './commands/verify.ts';
import { registerOverlap } from './commands/overlap.ts';
import { registerReport } from './commands/report.ts';
import { registerZoo } from './commands/zoo.ts';
import { EXIT_BAD_INPUT, EXIT_OK, exitCodeFor, formatError } from './errors.ts';

export function buildProgram(setExit: (code: number) => void): Command {
  const program = new Command('mcusim')
    .description('int8 TinyML models on a byte-accurate microcontroller arena')
    .version('0.1.0')
    .showHelpAfterError(false);
  program.exitOverride();
  program.configureOutput({
    outputError: (str, write) => write(`E_USAGE: ${str.replace(/^error: /, '')}`),
  });
  registerInspect(program, setExit);
  registerZoo(program, setExit);
  registerRun(program, setExit);
  registerOptimize(program, setExit);
  registerVerify(program, setExit);
  registerOverlap(program, setExit);
  registerConformance(program, setExit);
  registerCodegen(program, setExit);
  registerLatency(program, setExit);
  registerSweep(program, setExit);
  registerReport(program, setExit);
  for (const cmd of program.commands) {
    cmd.exitOverride();
    for (const sub of cmd.commands) sub.exitOverride();
  }
  return program;
}

/** Runs mcusim with node-style argv (argv[0] = node, argv[1] = script); returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  let code = EXIT_OK;
  const program = buildProgram((c) => {
    code = c;
  });
  try {
    await program.parseAsync([...argv]);
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      // Commander has printed help, the version or its E_USAGE message already.
      return e.exitCode === 0 ? EXIT_OK : EXIT_BAD_INPUT;
    }
    process.stderr.write(formatError(e, process.env.MCUSIM_DEBUG === '1'));
    return exitCodeFor(e);
  }
}
