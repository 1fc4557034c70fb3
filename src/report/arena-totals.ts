// The arena lines of the report's model summary. Today mcusim knows the planned (non-persistent)
// bytes; TFLM's persistent part, the total `arena_used_bytes()` and the board fit come from the
// whole-arena report (issue 8, DESIGN.md §9 `"arena"` / `"fit"`): pass them when they exist and
// the rows fill in, otherwise each says it is not computed.

/** One model's arena as DESIGN.md §9's `"arena"` object; only plannedBytes is required. */
export interface ArenaTotals {
  /** Whose arena (tflm | mcusim) and for which kernel library. */
  readonly runtime?: string;
  readonly kernels?: string;
  readonly cpu?: string | null;
  readonly plannedBytes: number;
  readonly declareBytes?: number;
  readonly persistentBytes?: number;
  readonly totalBytes?: number;
  readonly outsideArenaBytes?: number;
}

/** DESIGN.md §9's `"fit"` object for `--board`. */
export interface BoardFit {
  readonly board: string;
  readonly fits: boolean;
  readonly ramBytes: number;
  readonly marginBytes: number;
  readonly flashFits?: boolean;
}

export interface ArenaRow {
  readonly label: string;
  readonly before: string;
  readonly after: string;
}

const NOT_COMPUTED = 'not computed yet (whole-arena report)';

function bytes(n: number | undefined): string {
  return n === undefined ? NOT_COMPUTED : `${n.toLocaleString('en-US')} B`;
}

/** ", on TFLM, reference kernels" when both columns name the same runtime and library. */
function runtimeOf(a: ArenaTotals, b: ArenaTotals): string {
  if (a.runtime === undefined || a.runtime !== b.runtime || a.kernels !== b.kernels) return '';
  return `, on ${a.runtime === 'tflm' ? 'TFLM' : 'the mcusim C port'} with ${a.kernels} kernels${a.cpu ? ` for ${a.cpu}` : ''}`;
}

/** Arena rows before / after the passes; the optional parts show as not computed when absent. */
export function arenaTotalsRows(before: ArenaTotals, after: ArenaTotals, fit?: { readonly before?: BoardFit; readonly after?: BoardFit }): ArenaRow[] {
  const fitText = (f: BoardFit | undefined): string =>
    f === undefined ? NOT_COMPUTED : `${f.fits ? 'fits' : 'does not fit'} ${f.board} (${f.ramBytes.toLocaleString('en-US')} B RAM, margin ${f.marginBytes.toLocaleString('en-US')} B)${f.flashFits === false ? '; flash does not fit' : ''}`;
  return [
    { label: 'planned arena (activations, scratch)', before: bytes(before.plannedBytes), after: bytes(after.plannedBytes) },
    { label: 'persistent (TFLM runtime structures)', before: bytes(before.persistentBytes), after: bytes(after.persistentBytes) },
    { label: `total arena (arena_used_bytes${runtimeOf(before, after)})`, before: bytes(before.totalBytes), after: bytes(after.totalBytes) },
    { label: 'uint8_t tensor_arena[N] to declare', before: bytes(before.declareBytes), after: bytes(after.declareBytes) },
    { label: 'outside the arena', before: bytes(before.outsideArenaBytes), after: bytes(after.outsideArenaBytes) },
    { label: 'board fit', before: fitText(fit?.before), after: fitText(fit?.after) },
  ];
}
