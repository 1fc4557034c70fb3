// The Boards view: one row per board (`tr[data-board]` with data-latency-ms and data-fits, as the
// page contract reads them): core, whether the whole arena fits the arena RAM region (margin) and
// the weights the flash, latency with a bar on one scale, the slowest op. Headers sort; a row opens
// that board's per-op latency breakdown (`mcusim latency --board NAME`).
import { byId, bytesText, el, intText, kbText, msText, row, table } from '../dom.ts';
import type { Analysis, BoardLatency, BoardRow } from '../protocol.ts';

type SortKey = 'board' | 'core' | 'fits' | 'margin' | 'flash' | 'latency';

const KEYS: Readonly<Record<SortKey, (r: BoardRow) => number | string>> = {
  board: (r) => r.board,
  core: (r) => `${r.core} ${String(r.clockMhz).padStart(5, '0')}`,
  fits: (r) => (r.fits ? 1 : 0),
  margin: (r) => r.marginBytes,
  flash: (r) => r.flashMarginBytes,
  latency: (r) => r.latencyMs,
};

const HEADERS: readonly [string, SortKey | null, boolean][] = [
  ['board', 'board', false], ['core', 'core', false], ['fits RAM', 'fits', false], ['arena region', null, false],
  ['RAM margin', 'margin', true], ['flash for weights', 'flash', true], ['latency', 'latency', true], ['', null, false], ['slowest op (share)', null, false],
];

export interface BoardsState {
  key: SortKey;
  ascending: boolean;
}

export function renderBoards(a: Analysis, state: BoardsState, chosen: string, onChoose: (board: string) => void): void {
  const sorted = [...a.boards].sort((x, y) => {
    const kx = KEYS[state.key](x);
    const ky = KEYS[state.key](y);
    const c = typeof kx === 'number' && typeof ky === 'number' ? kx - ky : String(kx).localeCompare(String(ky));
    return state.ascending ? c : -c;
  });
  const slowest = Math.max(...a.boards.map((b) => b.latencyMs), 1e-9);
  const rows = sorted.map((b) => {
    const bar = el('span', { class: `bar${b.fits ? '' : ' over'}`, style: `width:${((140 * b.latencyMs) / slowest).toFixed(1)}px` });
    const heavy = b.heaviestOp === null ? '-' : `${b.heaviestOp.index} ${b.heaviestOp.kind} ${(b.heaviestOp.share * 100).toFixed(1)}%`;
    const r = row([
      b.board, `${b.core.replace('cortex-', '')} ${b.clockMhz} MHz`, el('span', { class: `fits-${b.fits}` }, b.fits ? 'yes' : 'no'),
      `${b.region} ${kbText(b.ramBytes)}`, el('span', { title: `${b.neededBytes} B needed of ${b.ramBytes} B` }, kbText(b.marginBytes)),
      el('span', { class: `fits-${b.flashFits}`, title: `weights ${b.flashBytes - b.flashMarginBytes} B of ${b.flashBytes} B flash` }, b.flashFits ? `${kbText(b.flashMarginBytes)} spare` : `${kbText(-b.flashMarginBytes)} short`),
      msText(b.latencyMs), bar, heavy,
    ], { 'data-board': b.board, 'data-latency-ms': b.latencyMs, 'data-fits': String(b.fits), 'data-flash-fits': String(b.flashFits), class: b.board === chosen ? 'chosen' : undefined });
    r.addEventListener('click', () => onChoose(b.board));
    return r;
  });
  const t = table(HEADERS.map(([h]) => h), rows);
  t.querySelectorAll('th').forEach((th, i) => {
    const [, key, numeric] = HEADERS[i] ?? ['', null, false];
    if (key === null) return;
    th.classList.add('sortable');
    if (numeric) th.classList.add('num');
    if (key === state.key) th.classList.add(state.ascending ? 'sorted-asc' : 'sorted-desc');
    th.addEventListener('click', () => {
      state.ascending = key === state.key ? !state.ascending : true;
      state.key = key;
      renderBoards(a, state, chosen, onChoose);
    });
  });
  byId('board-table').replaceChildren(el('div', { class: 'wide' }, t), el('p', { class: 'hint' }, `${a.boards.length} boards; ${a.latency.library} kernels, engine ${a.latency.engine}; whole arena ${bytesText(a.summary.arenaBytes)} (${a.kernels}${a.cpu === null ? '' : `, ${a.cpu}`} build). Bars: latency on one scale, red where the arena does not fit.`));
}

export function renderBoardDetail(l: BoardLatency): void {
  const rows = l.ops.map((o) => row([String(o.index), o.kind, el('span', { class: 'mono' }, o.path), intText(o.macs), intText(o.instructions), intText(o.cycles), o.ms.toFixed(3), `${(o.share * 100).toFixed(1)}%`,
    el('span', { class: 'bar', style: `width:${(o.share * 200).toFixed(1)}px` })]));
  byId('board-detail').replaceChildren(
    el('h3', { 'data-board': l.board, 'data-instructions': l.instructions }, `${l.board}: ${msText(l.totalMs)} per inference, ${intText(l.instructions)} instructions (${l.core} ${l.clockMhz} MHz, ${l.library} kernels, ${l.engine})`),
    el('div', { class: 'scroll' }, table(['op', 'kind', 'kernel path', 'MACs', 'instructions', 'cycles', 'compute ms', 'share', ''], rows)),
  );
}
