// mcusim's command line: builds the commander program (one file per command under commands/),
// runs it, and turns every outcome into an exit code; see errors.ts for the mapping. Only the
// invoked command's module is imported (each pulls in the library layers), so `--version` and
// `--help` load commander and this table alone; COMMANDS holds the help line of the others. (In the
// CLI's bundle, a command import loads the commands bundle, every command and the library, once:
// scripts/build.mjs.)
import { Command, CommanderError } from 'commander';
import { EXIT_BAD_INPUT, EXIT_OK } from './exit-codes.ts';

type Register = (program: Command, setExit: (code: number) => void) => void;

interface CommandEntry {
  /** The command's line in `mcusim --help` before its module is loaded (test/cli checks it). */
  readonly term: string;
  readonly summary: string;
  readonly load: () => Promise<Register>;
}

/** In help order. */
export const COMMANDS: Readonly<Record<string, CommandEntry>> = Object.freeze({
  inspect: { term: 'inspect [options] <model>', summary: 'show ops, tensors and the verified memory plan of a model', load: async () => (await import('./commands/inspect.ts')).registerInspect },
  zoo: { term: 'zoo', summary: 'the built-in seeded model zoo', load: async () => (await import('./commands/zoo.ts')).registerZoo },
  boards: { term: 'boards [options]', summary: 'the built-in board profiles: core, clock, RAM regions, flash wait states', load: async () => (await import('./commands/boards.ts')).registerBoards },
  run: { term: 'run [options] <model>', summary: 'plan the arena and run a model, writing its output tensors as raw bytes', load: async () => (await import('./commands/run.ts')).registerRun },
  optimize: { term: 'optimize [options] <model>', summary: 'run optimizer passes and write the optimized model (plan as OfflineMemoryAllocation)', load: async () => (await import('./commands/optimize.ts')).registerOptimize },
  verify: { term: 'verify [options] <original> <optimized>', summary: 'run ORIGINAL and OPTIMIZED on seeded inputs, compare every output byte, trace the optimized run', load: async () => (await import('./commands/verify.ts')).registerVerify },
  overlap: { term: 'overlap [options]', summary: 'safe input/output overlap O_s of one op (DMO): trace, algorithmic (minR/maxW) and analytic', load: async () => (await import('./commands/overlap.ts')).registerOverlap },
  conformance: { term: 'conformance [options] <files...>', summary: 'replay TFLM oracle kernel vectors (JSONL) and compare outputs byte for byte', load: async () => (await import('./commands/conformance.ts')).registerConformance },
  codegen: { term: 'codegen [options] <model>', summary: 'write a self-contained C99 project (host and Cortex-M7/QEMU) running the planned model', load: async () => (await import('./commands/codegen.ts')).registerCodegen },
  latency: { term: 'latency [options] [model]', summary: 'estimate one inference\'s latency on a board: compute, spill, fetch, codec, stall (TinySeg Table 5)', load: async () => (await import('./commands/latency.ts')).registerLatency },
  sweep: { term: 'sweep [options] <model>', summary: 'partial-spilling sweep: tinyseg at spill 0..100% with peak and latency per point (TinySeg Figure 14)', load: async () => (await import('./commands/sweep.ts')).registerSweep },
  report: { term: 'report [options] <model>', summary: 'one self-contained HTML page: summary, plans before/after, O_s, passes, latency, sweep, verification', load: async () => (await import('./commands/report.ts')).registerReport },
  web: { term: 'web [options]', summary: 'serve the web page (drop a model, its arena on every board, optimize, verify, download) on 127.0.0.1', load: async () => (await import('./commands/web.ts')).registerWeb },
});

/** The command argv names (`mcusim help X` names X), or null for bare `--help` / `--version`. */
export function invokedCommand(argv: readonly string[]): string | null {
  const words = argv.slice(2).filter((a) => !a.startsWith('-'));
  const name = words[0] === 'help' ? words[1] : words[0];
  return name !== undefined && Object.hasOwn(COMMANDS, name) ? name : null;
}

/** The program with the commands in `loaded` registered in full and the others as help-only stubs. */
export function buildProgram(setExit: (code: number) => void, loaded: ReadonlyMap<string, Register>): Command {
  const program = new Command('mcusim')
    .description('int8 TinyML models on a byte-accurate microcontroller arena')
    .version('0.1.0')
    .showHelpAfterError(false);
  program.exitOverride();
  program.configureOutput({
    outputError: (str, write) => write(`E_USAGE: ${str.replace(/^error: /, '')}`),
  });
  const stubs = new Set<Command>();
  for (const [name, entry] of Object.entries(COMMANDS)) {
    const register = loaded.get(name);
    if (register) register(program, setExit);
    else stubs.add(program.command(name).description(entry.summary));
  }
  const help = program.createHelp();
  program.configureHelp({ subcommandTerm: (cmd) => (stubs.has(cmd) ? COMMANDS[cmd.name()]?.term ?? cmd.name() : help.subcommandTerm(cmd)) });
  for (const cmd of program.commands) {
    cmd.exitOverride();
    for (const sub of cmd.commands) sub.exitOverride();
  }
  return program;
}

/** Every command's register function (tests compare the full program with the stubs). */
export async function loadCommands(names: readonly string[] = Object.keys(COMMANDS)): Promise<Map<string, Register>> {
  const loaded = new Map<string, Register>();
  for (const name of names) {
    const entry = COMMANDS[name];
    if (entry) loaded.set(name, await entry.load());
  }
  return loaded;
}

/** Runs mcusim with node-style argv (argv[0] = node, argv[1] = script); returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  let code = EXIT_OK;
  try {
    const name = invokedCommand(argv);
    const program = buildProgram((c) => {
      code = c;
    }, await loadCommands(name === null ? [] : [name]));
    await program.parseAsync([...argv]);
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      // Commander has printed help, the version or its E_USAGE message already.
      return e.exitCode === 0 ? EXIT_OK : EXIT_BAD_INPUT;
    }
    const { exitCodeFor, formatError } = await import('./errors.ts');
    process.stderr.write(formatError(e, process.env.MCUSIM_DEBUG === '1'));
    return exitCodeFor(e);
  }
}
