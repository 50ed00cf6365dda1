/**
 * The job view: per-model figures and the task x model heat map of mean
 * reward. Every string from the job file goes through textContent; a cell
 * click asks the host to open that cell's rollouts in the trace explorer, and
 * a row's compare control asks for two models' rollouts side by side.
 */
import type { JobViewCell, JobViewData, JobViewToHostMessage } from '../../../common/jobViewMessages';
import css from './styles.css';

interface VsCodeApi {
  postMessage(message: unknown): void;
}
declare global {
  interface Window {
    /** Messages sent while running outside VS Code (browser tests). */
    hudJobOutbox?: JobViewToHostMessage[];
  }
}

const nonce = (document.currentScript as HTMLScriptElement | null)?.nonce ?? '';
// Injected by VS Code into webviews (callable once); absent in a plain browser.
const acquire = (globalThis as { acquireVsCodeApi?: () => VsCodeApi }).acquireVsCodeApi;
const api = typeof acquire === 'function' ? acquire() : undefined;
const post = (m: JobViewToHostMessage): void => {
  if (api) api.postMessage(m);
  else (window.hudJobOutbox ??= []).push(m);
};

function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, cls?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

const reward = (x: number | null): string => (x === null ? '-' : x.toFixed(2));
const pct = (x: number | null): string => (x === null ? '-' : `${Math.round(x * 100)}%`);

/** Red (0) through amber to green (1); the text stays readable on every shade. */
function heat(x: number): string {
  const clamped = Math.max(0, Math.min(1, x));
  return `hsl(${Math.round(clamped * 120)}, 55%, 32%)`;
}

function row(cells: (string | HTMLElement)[], header = false): HTMLTableRowElement {
  const tr = el('tr');
  for (const c of cells) {
    const td = el(header ? 'th' : 'td');
    if (typeof c === 'string') td.textContent = c;
    else td.append(c);
    tr.append(td);
  }
  return tr;
}

function modelTable(d: JobViewData): HTMLTableElement {
  const t = el('table');
  t.dataset['testid'] = 'models';
  t.append(
    row(
      [
        'model',
        'runs',
        'mean reward',
        'pass@1',
        `pass@${d.k}`,
        'errors setup/actor/verifier',
        'tokens in/out (cached)',
        'wall',
      ],
      true,
    ),
  );
  for (const m of d.modelRows) {
    const tr = row([
      m.model,
      String(m.runs),
      reward(m.meanReward),
      pct(m.passAt1),
      pct(m.passAtK),
      `${m.errors.setup}/${m.errors.actor}/${m.errors.verifier}`,
      m.tokens ? `${m.tokens.input}/${m.tokens.output} (${m.tokens.cached})` : '-',
      m.wallMs === null ? '-' : `${(m.wallMs / 1000).toFixed(1)} s`,
    ]);
    for (const td of Array.from(tr.children).slice(1)) td.classList.add('num');
    t.append(tr);
  }
  return t;
}

function cellButton(c: JobViewCell | undefined, task: string, model: string): HTMLElement {
  if (!c || c.runs === 0 || c.meanReward === null) return el('span', '-', 'cell empty');
  const b = el('button', reward(c.meanReward), 'cell');
  b.type = 'button';
  b.style.background = heat(c.meanReward);
  b.title = `${task} x ${model}: ${c.passed}/${c.runs} passed; click to open ${c.traces.length === 1 ? 'its rollout' : 'its rollouts'}`;
  b.dataset['testid'] = 'cell';
  b.disabled = c.traces.length === 0;
  b.addEventListener('click', () => post({ type: 'openTraces', traces: c.traces }));
  return b;
}

function modelSelect(models: string[], chosen: number, label: string): HTMLSelectElement {
  const s = el('select');
  s.setAttribute('aria-label', label);
  models.forEach((m, i) => {
    const o = el('option', m);
    o.value = String(i);
    o.selected = i === chosen;
    s.append(o);
  });
  return s;
}

/** Two models' first rollouts of this task, chosen in two lists (the first two models by default). */
function compareControl(d: JobViewData, i: number, task: string): HTMLElement {
  const withTraces = d.models.flatMap((model, j) => {
    const trace = d.cells[i]?.[j]?.traces[0];
    return trace ? [{ model, trace }] : [];
  });
  if (withTraces.length < 2) return el('span', '-', 'muted');
  const names = withTraces.map((w) => w.model);
  const a = modelSelect(names, 0, `${task}: model A`);
  const b = modelSelect(names, 1, `${task}: model B`);
  const go = el('button', 'Compare', 'compare');
  go.type = 'button';
  go.title = `Open two models' rollouts of ${task} side by side`;
  go.dataset['testid'] = 'compare-models';
  go.addEventListener('click', () => {
    const left = withTraces[Number(a.value)];
    const right = withTraces[Number(b.value)];
    if (left && right && left !== right) post({ type: 'compareModels', task, left, right });
  });
  const box = el('span', undefined, 'compare-pick');
  box.append(a, el('span', ' vs ', 'muted'), b, go);
  return box;
}

function heatMap(d: JobViewData): HTMLTableElement {
  const t = el('table', undefined, 'heat');
  t.dataset['testid'] = 'heatmap';
  t.append(row(['task', ...d.models, 'side by side'], true));
  d.tasks.forEach((task, i) => {
    const tr = el('tr');
    tr.append(el('th', task, 'task'));
    d.models.forEach((model, j) => {
      const td = el('td');
      td.append(cellButton(d.cells[i]?.[j], task, model));
      tr.append(td);
    });
    const compare = el('td');
    compare.append(compareControl(d, i, task));
    tr.append(compare);
    t.append(tr);
  });
  return t;
}

function main(): void {
  const style = el('style', css);
  if (nonce) style.nonce = nonce;
  document.head.append(style);
  const app = document.getElementById('app');
  const raw = document.getElementById('hud-job')?.textContent ?? 'null';
  if (!app) return;
  try {
    const d = JSON.parse(raw) as JobViewData;
    app.append(
      el('h1', `Job ${d.jobId.slice(0, 8)}`),
      el(
        'div',
        `${d.tasks.length} task(s) x ${d.models.length} model(s), ${d.k} run(s) each, pass at reward >= ${d.threshold}; started ${d.startedAt}`,
        'meta',
      ),
      modelTable(d),
      el('h2', 'Mean reward, task x model'),
      heatMap(d),
    );
    document.body.dataset['state'] = 'ready';
  } catch (err) {
    app.append(el('p', `This job file cannot be shown: ${(err as Error).message}`));
    document.body.dataset['state'] = 'error';
  }
}

main();
