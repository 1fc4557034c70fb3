// The page (UI thread): wires the controls of the page contract (DESIGN.md §9) to the engine worker
// and the verify workers, and draws what they answer. It loads no library code itself: every
// figure is computed in a worker by the library (engine.ts), the choices come from the library's
// tables at build time (catalog.ts). `body[data-busy]` is "true" from the moment an action starts
// (set synchronously in its event handler) until its figures are drawn.
import { byId, el } from './dom.ts';
import { EngineClient, PageFailure } from './engine-client.ts';
import type { Analysis, Build, Catalog, DownloadKind, ModelSource, Optimized, PageError } from './protocol.ts';
import { renderBoardDetail, renderBoards } from './views/boards-view.ts';
import type { BoardsState } from './views/boards-view.ts';
import { lightOps, renderOps, renderOverlap } from './views/op-table.ts';
import { clearOptimized, renderDownloads, renderOptimized, showGenerated } from './views/optimize-view.ts';
import { clearSummary, renderSummary } from './views/summary-view.ts';
import { clearVerdict, renderVerdict } from './views/verify-view.ts';
import { VerifyCancelled, startVerify } from './verify-runner.ts';
import type { VerifyRun } from './verify-runner.ts';
import type { VerifyReport } from '../api/index.ts';

declare const MCUSIM_CATALOG: Catalog;

const select = (sel: string): HTMLSelectElement => document.querySelector<HTMLSelectElement>(sel) as HTMLSelectElement;
const input = (sel: string): HTMLInputElement => document.querySelector<HTMLInputElement>(sel) as HTMLInputElement;
const button = (sel: string): HTMLButtonElement => document.querySelector<HTMLButtonElement>(sel) as HTMLButtonElement;

function fillSelect(s: HTMLSelectElement, options: readonly { value: string; text: string; title?: string }[], chosen: string): void {
  s.append(...options.map((o) => el('option', { value: o.value, selected: o.value === chosen, title: o.title }, o.text)));
}

interface PageState {
  source: ModelSource | null;
  analysis: Analysis | null;
  optimized: Optimized | null;
  verification: VerifyReport | null;
  verifyRun: VerifyRun | null;
  /** Bumped by every load and build change: answers to older requests are dropped. */
  generation: number;
  busy: number;
  boards: BoardsState;
}

function start(catalog: Catalog): void {
  const engine = new EngineClient(new URL('./engine-worker.js', import.meta.url), (line) => {
    byId('progress-line').textContent = line;
  });
  const state: PageState = { source: null, analysis: null, optimized: null, verification: null, verifyRun: null, generation: 0, busy: 0, boards: { key: 'latency', ascending: true } };
  const zoo = select('select[data-action="zoo"]');
  const file = input('input[type=file][data-action="load-file"]');
  const kernels = select('select[data-control="kernels"]');
  const cpu = select('select[data-control="cpu"]');
  const board = select('select[data-control="board"]');
  const engineSel = select('select[data-control="engine"]');
  const optimizeButton = button('button[data-action="optimize"]');
  const verifyButton = button('button[data-action="verify"]');
  const cancelButton = button('button[data-action="cancel-verify"]');
  fillSelect(zoo, catalog.zoo.map((z) => ({ value: `zoo:${z.name}`, text: `zoo:${z.name}`, title: z.description })), '');
  fillSelect(kernels, catalog.kernels.map((k) => ({ value: k, text: k })), 'reference');
  fillSelect(cpu, catalog.cpus.map((c) => ({ value: c, text: c })), catalog.defaultCpu);
  fillSelect(board, catalog.boards.map((b) => ({ value: b.name, text: `${b.name} (${b.core})` })), catalog.defaultBoard);
  fillSelect(engineSel, catalog.engines.map((e) => ({ value: e, text: e })), 'tflm');
  byId('pass-list').textContent = `passes: ${catalog.passes.join(', ')}`;
  const build = (): Build => ({ kernels: kernels.value, cpu: cpu.value, board: board.value, engine: engineSel.value });
  const syncCpu = (): void => {
    cpu.disabled = kernels.value !== 'cmsis-nn';
  };
  syncCpu();

  const setBusy = (delta: number): void => {
    state.busy += delta;
    document.body.dataset.busy = state.busy > 0 ? 'true' : 'false';
    optimizeButton.disabled = state.busy > 0 || state.analysis === null;
    verifyButton.disabled = state.busy > 0 || state.optimized?.bytes == null;
  };
  const clearError = (): void => byId('status').querySelectorAll('[data-error]').forEach((e) => e.remove());
  const showError = (e: PageError): void => {
    clearError();
    byId('status').append(el('div', { class: 'error', 'data-error': e.code, role: 'alert' }, e.text));
  };
  /** Runs one action with the page busy; its failure is shown with the CLI's code and text. */
  const act = async (work: () => Promise<void>): Promise<void> => {
    setBusy(+1);
    clearError();
    try {
      await work();
    } catch (e) {
      if (e instanceof VerifyCancelled) clearVerdict('cancelled');
      else showError(e instanceof PageFailure ? e.error : { code: 'E_INTERNAL', message: String(e), text: `E_INTERNAL: ${String(e)}` });
    } finally {
      setBusy(-1);
      byId('progress-line').textContent = '';
    }
  };
  const resetOptimized = (): void => {
    state.optimized = null;
    state.verification = null;
    state.verifyRun?.cancel();
    clearOptimized();
    clearVerdict();
  };
  const analyze = async (): Promise<void> => {
    const generation = ++state.generation;
    state.analysis = null;
    clearSummary();
    resetOptimized();
    if (state.source === null) return;
    const a = await engine.call('analyze', { build: build() });
    if (generation !== state.generation) return;
    state.analysis = a;
    renderSummary(a, lightOps);
    renderOps(a, (opIndex) => void act(async () => renderOverlap(await engine.call('overlap', { opIndex, build: build() }))));
    renderBoards(a, state.boards, board.value, chooseBoard);
    renderBoardDetailFor(a);
  };
  const renderBoardDetailFor = (a: Analysis): void => renderBoardDetail(a.latency);
  /** A board row opens that board's per-op breakdown (the chosen board, the select's, stays). */
  const chooseBoard = (name: string): void => {
    const generation = state.generation;
    void act(async () => {
      const l = await engine.call('latency', { board: name, build: build() });
      if (generation !== state.generation) return;
      renderBoardDetail(l);
      for (const r of document.querySelectorAll<HTMLTableRowElement>('tr[data-board]')) r.classList.toggle('opened', r.dataset.board === name);
    });
  };
  const load = (source: ModelSource, transfer: Transferable[] = []): void => {
    void act(async () => {
      state.source = null;
      ++state.generation;
      clearSummary();
      resetOptimized();
      byId('model-label').textContent = source.kind === 'zoo' ? `zoo:${source.name}` : source.name;
      const { label, recorded } = await engine.call('load', { source }, transfer);
      state.source = source;
      if (recorded !== null && [...kernels.options].some((o) => o.value === recorded.kernels)) {
        kernels.value = recorded.kernels;
        if (recorded.cpu !== null) cpu.value = recorded.cpu;
        syncCpu();
      }
      byId('model-label').textContent = label;
      await analyze();
    });
  };
  zoo.addEventListener('change', () => {
    if (zoo.value === '') return;
    load({ kind: 'zoo', name: zoo.value.replace(/^zoo:/, '') });
  });
  const loadFile = (f: File): void => {
    zoo.value = '';
    setBusy(+1);
    void f.arrayBuffer().then((buffer) => {
      setBusy(-1);
      const bytes = new Uint8Array(buffer);
      // Posted as a copy: the page keeps the bytes for the verify workers (the original model).
      load({ kind: 'file', name: f.name, bytes });
    }, (e: unknown) => {
      setBusy(-1);
      showError({ code: 'E_USAGE', message: String(e), text: `E_USAGE: cannot read '${f.name}': ${String(e)}` });
    });
  };
  file.addEventListener('change', () => {
    const f = file.files?.[0];
    if (f !== undefined) loadFile(f);
    file.value = '';
  });
  document.addEventListener('dragover', (e) => {
    e.preventDefault();
    document.body.classList.add('dragging');
  });
  document.addEventListener('dragleave', () => document.body.classList.remove('dragging'));
  document.addEventListener('drop', (e) => {
    e.preventDefault();
    document.body.classList.remove('dragging');
    const f = e.dataTransfer?.files[0];
    if (f !== undefined) loadFile(f);
  });
  for (const s of [kernels, cpu, board, engineSel]) {
    s.addEventListener('change', () => {
      syncCpu();
      void act(analyze);
    });
  }

  optimizeButton.addEventListener('click', () => {
    const generation = state.generation;
    resetOptimized();
    void act(async () => {
      const o = await engine.call('optimize', {
        passes: input('input[data-control="passes"]').value,
        targetBytes: input('input[data-control="target-bytes"]').value,
        spillPercent: input('input[data-control="spill-percent"]').value,
        build: build(),
      });
      if (generation !== state.generation) return;
      state.optimized = o;
      renderOptimized(o);
      renderDownloads(o, generate);
    });
  });
  const generate = (kind: DownloadKind, b: HTMLButtonElement): void => {
    void act(async () => {
      const d = await engine.call('download', { kind, build: build(), verification: state.verification });
      showGenerated(b, d.bytes, d.fileName, d.mime, kind, d.note);
    });
  };

  verifyButton.addEventListener('click', () => {
    const bytes = state.optimized?.bytes ?? null;
    const source = state.source;
    if (bytes === null || source === null) return;
    const seeds = Number(input('input[data-control="seeds"]').value);
    void act(async () => {
      if (!Number.isSafeInteger(seeds) || seeds < 1) throw new PageFailure({ code: 'E_USAGE', message: `--seeds must be a positive integer, got '${input('input[data-control="seeds"]').value}'`, text: `E_USAGE: --seeds must be a positive integer, got '${input('input[data-control="seeds"]').value}'` });
      const progress = byId<HTMLProgressElement>('verify-progress');
      const count = byId('verify-count');
      progress.hidden = false;
      progress.max = seeds;
      progress.value = 0;
      cancelButton.hidden = false;
      clearVerdict('running…');
      const b = build();
      const run = startVerify(new URL('./verify-worker.js', import.meta.url), { original: source, optimized: bytes, kernels: b.kernels, cpu: b.kernels === 'cmsis-nn' ? b.cpu : null }, seeds, (n) => {
        progress.value = n;
        count.textContent = `${n} / ${seeds} seeds`;
      });
      state.verifyRun = run;
      try {
        const report = await run.done;
        state.verification = report;
        renderVerdict(report);
      } finally {
        state.verifyRun = null;
        cancelButton.hidden = true;
        progress.hidden = true;
      }
    });
  });
  cancelButton.addEventListener('click', () => state.verifyRun?.cancel());
  setBusy(0);
}

start(MCUSIM_CATALOG);
