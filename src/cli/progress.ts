// Progress on stderr. Counted ("seed 12/1000, 34.5 s") for commands that loop over many units:
// silent for the first second, then at most one line per second (on a TTY rewritten in place),
// and after the first unit an extrapolated total when the whole run looks long. Phases
// ("codegen: emitting C for 84 ops") for commands doing a few long steps on a real model (over
// LARGE_MODEL_TENSORS tensors): one line as each step starts, since a synchronous step cannot
// report from inside. `--quiet` silences both; stdout never sees them, so `--json` documents stay clean.

const QUIET_FOR_MS = 1000;
const EVERY_MS = 1000;
/** Runs estimated longer than this get an "about N s" line after the first unit. */
const ESTIMATE_ABOVE_MS = 5000;

export interface CountedProgress {
  /** Unit `done` (1-based) of `total` finished. */
  readonly tick: (done: number) => void;
  readonly finish: () => void;
}

function seconds(ms: number): string {
  const s = ms / 1000;
  if (s < 120) return `${s.toFixed(1)} s`;
  if (s < 7200) return `${(s / 60).toFixed(1)} min`;
  if (s < 172_800) return `${(s / 3600).toFixed(1)} h`;
  return `${(s / 86_400).toFixed(1)} days`;
}

/**
 * Progress for `total` units named `unit`; `parallel` units run at once (the estimate divides by it).
 * `write` gets whole lines (ending in \n) or, on a TTY, in-place updates (starting with \r).
 */
export function countedProgress(unit: string, total: number, opts: { readonly quiet?: boolean; readonly parallel?: number; readonly now?: () => number; readonly write?: (text: string) => void; readonly tty?: boolean } = {}): CountedProgress {
  if (opts.quiet === true) return { tick: () => undefined, finish: () => undefined };
  const now = opts.now ?? (() => performance.now());
  const write = opts.write ?? ((text: string) => void process.stderr.write(text));
  const tty = opts.tty ?? process.stderr.isTTY === true;
  const parallel = Math.max(1, opts.parallel ?? 1);
  const start = now();
  let last = -Infinity;
  let shownInPlace = false;
  let estimated = false;
  return {
    tick: (done) => {
      const t = now();
      const elapsed = t - start;
      if (!estimated && done >= 1 && total > 1) {
        estimated = true;
        const perUnit = elapsed / done;
        const expected = (perUnit * total) / parallel;
        if (expected > ESTIMATE_ABOVE_MS) {
          write(`${shownInPlace ? '\n' : ''}${unit} ${done} took ${seconds(perUnit)}; ${total} ${unit}s${parallel > 1 ? ` on ${parallel} threads` : ''}: about ${seconds(expected)} in all\n`);
          shownInPlace = false;
        }
      }
      if (elapsed < QUIET_FOR_MS || (t - last < EVERY_MS && done < total)) return;
      last = t;
      const line = `${unit} ${done}/${total}, ${seconds(elapsed)}`;
      if (tty) {
        write(`\r${line.padEnd(40)}`);
        shownInPlace = true;
      } else {
        write(`${line}\n`);
      }
    },
    finish: () => {
      if (shownInPlace) write('\n');
      shownInPlace = false;
    },
  };
}

/**
 * Models above this many tensors are real ones (inspect prints a summary for them): latency,
 * codegen and inspect take a second or more there and announce their phases; toy models (hello_world,
 * cifar10-cnn) finish well within a second and stay silent.
 */
export const LARGE_MODEL_TENSORS = 40;

export interface PhaseProgress {
  /** Announces the step about to start. */
  readonly phase: (text: string) => void;
}

/**
 * Named phases of `command`: `phase(text)` writes "command: text" (from the second phase on with the
 * time since the first, "command: text, 1.3 s") when `show` (the work is large enough to take a
 * second) and not `quiet`.
 */
export function phaseProgress(command: string, opts: { readonly show: boolean; readonly quiet?: boolean; readonly now?: () => number; readonly write?: (text: string) => void }): PhaseProgress {
  if (opts.quiet === true || !opts.show) return { phase: () => undefined };
  const now = opts.now ?? (() => performance.now());
  const write = opts.write ?? ((text: string) => void process.stderr.write(text));
  let start: number | null = null;
  return {
    phase: (text) => {
      const t = now();
      write(start === null ? `${command}: ${text}\n` : `${command}: ${text}, ${seconds(t - start)}\n`);
      start ??= t;
    },
  };
}

/** Whether a model is large enough for phase lines (more than LARGE_MODEL_TENSORS tensors). */
export function isLargeModel(graph: { readonly tensors: readonly unknown[] }): boolean {
  return graph.tensors.length > LARGE_MODEL_TENSORS;
}
