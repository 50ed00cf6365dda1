/**
 * Trace explorer webview entry (bundled to dist/media/explorer.js as an IIFE).
 * In VS Code the host posts messages (see common/explorerMessages.ts).
 * In a plain browser (development, tests) the page takes `?trace=URL`
 * (and `&compare=URL` for a second rollout), a file picker, or messages
 * posted to the window.
 */
import './zodJitless'; // first: before any zod schema is built
import { ExplorerApp } from './app';
import { h, type Child } from './dom';
import { connectHost } from './host';
import css from './styles.css';

// The nonce of our own <script> tag: styles injected under it pass the strict CSP.
const nonce = (document.currentScript as HTMLScriptElement | null)?.nonce ?? '';

function injectStyles(): void {
  const style = document.createElement('style');
  if (nonce) style.nonce = nonce;
  style.textContent = css;
  document.head.appendChild(style);
}

function start(): void {
  injectStyles();
  const host = connectHost();
  const root = document.getElementById('app') ?? document.body.appendChild(h('div', { attrs: { id: 'app' } }));
  const app: ExplorerApp = new ExplorerApp(
    root,
    host,
    host.inVsCode ? (): Child => null : (): Child => filePicker(app),
  );
  window.addEventListener('message', (e: MessageEvent) => app.handle(e.data));

  const initial = document.getElementById('hud-initial-trace');
  if (initial?.textContent) {
    try {
      app.handle({ type: 'trace', trace: JSON.parse(initial.textContent) as unknown });
    } catch (e) {
      app.handle({ type: 'loadError', message: `the embedded trace is not valid JSON: ${String(e)}` });
    }
  }
  if (!host.inVsCode) void loadFromQuery(app);
  host.post({ type: 'ready' });
}

/** Development: `?trace=URL[&compare=URL]` fetched from the same server. */
async function loadFromQuery(app: ExplorerApp): Promise<void> {
  const q = new URLSearchParams(location.search);
  const first = q.get('trace');
  if (!first) return;
  const second = q.get('compare');
  try {
    const [left, right] = await Promise.all([
      fetchText(first),
      second ? fetchText(second) : Promise.resolve(undefined),
    ]);
    app.handle(right === undefined ? { type: 'trace', trace: left } : { type: 'compare', left, right });
  } catch (e) {
    app.handle({ type: 'loadError', message: e instanceof Error ? e.message : String(e) });
  }
}

async function fetchText(url: string): Promise<string> {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return r.text();
}

/** Development: open one trace, or two to compare. */
function filePicker(app: ExplorerApp): Child {
  const input = h('input', {
    attrs: { type: 'file', accept: '.json,application/json', multiple: '', 'aria-label': 'Open trace files' },
    on: {
      change: () => {
        const files = [...(input.files ?? [])];
        void Promise.all(files.slice(0, 2).map((f) => f.text())).then((texts) => {
          if (texts.length === 2) app.handle({ type: 'compare', left: texts[0], right: texts[1] });
          else if (texts.length === 1) app.handle({ type: 'trace', trace: texts[0] });
        });
      },
    },
  });
  return h('label', { class: 'picker' }, 'Open a .hudtrace.json file (pick two to compare): ', input);
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true });
else start();
