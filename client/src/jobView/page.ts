/**
 * The job view's page and the data it shows: a job file (`*.hudjob.json`)
 * reduced to what the heat map needs. Host-side (no `vscode` import) so the
 * extension and the browser tests serve the same page under the same CSP.
 * The data is embedded as inert JSON; the page builds its DOM with
 * textContent only, so nothing in a job file can become markup.
 */
import { renderWebviewPage } from '../webviewPage';

export { makeNonce } from '../webviewPage';

export type { JobViewCell, JobViewData, JobViewModelRow, JobViewToHostMessage } from '../../../common/jobViewMessages';
import type { JobViewCell, JobViewData } from '../../../common/jobViewMessages';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const strs = (v: unknown): string[] => arr(v).filter((x): x is string => typeof x === 'string');

/**
 * A job across models has `models` and `matrix`; an older or single-agent job
 * gets one column, "agent", built from its tasks. Anything malformed becomes
 * empty rather than an exception: a job file is untrusted input.
 */
export function jobViewData(job: unknown): JobViewData {
  const j = obj(job);
  const matrix = obj(j['matrix']);
  const base = {
    jobId: str(j['jobId']),
    startedAt: str(j['startedAt']),
    k: num(j['k']) ?? 1,
    threshold: num(j['threshold']) ?? 1,
  };
  if (Array.isArray(matrix['cells'])) {
    return {
      ...base,
      tasks: strs(matrix['tasks']),
      models: strs(matrix['models']),
      cells: arr(matrix['cells']).map((row) => arr(row).map(cellOf)),
      modelRows: arr(j['models']).map((m) => {
        const o = obj(m);
        const e = obj(o['errorsByPhase']);
        const t = obj(o['tokens']);
        return {
          model: str(o['model']),
          runs: num(o['runs']) ?? 0,
          meanReward: num(o['meanReward']),
          passAt1: num(o['passAt1']),
          passAtK: num(o['passAtK']),
          errors: { setup: num(e['setup']) ?? 0, actor: num(e['actor']) ?? 0, verifier: num(e['verifier']) ?? 0 },
          tokens: { input: num(t['input']) ?? 0, output: num(t['output']) ?? 0, cached: num(t['cached']) ?? 0 },
          wallMs: num(o['wallMs']),
        };
      }),
    };
  }
  const tasks = arr(j['tasks']).map(obj);
  const errors = obj(j['errorsByPhase']);
  return {
    ...base,
    tasks: tasks.map((t) => str(t['ref'])),
    models: ['agent'],
    cells: tasks.map((t) => [
      cellOf({ ...t, runs: arr(t['runs']).length, traces: arr(t['runs']).map((r) => obj(r)['trace']) }),
    ]),
    modelRows: [
      {
        model: 'agent',
        runs: num(j['total']) ?? 0,
        meanReward: num(j['meanReward']),
        passAt1: num(j['passAt1']),
        passAtK: num(j['passAtK']),
        errors: {
          setup: num(errors['setup']) ?? 0,
          actor: num(errors['actor']) ?? 0,
          verifier: num(errors['verifier']) ?? 0,
        },
        tokens: null,
        wallMs: num(j['durationMs']),
      },
    ],
  };
}

function cellOf(c: unknown): JobViewCell {
  const o = obj(c);
  return {
    meanReward: num(o['meanReward']),
    runs: num(o['runs']) ?? 0,
    passed: num(o['passed']) ?? 0,
    passAtK: num(o['passAtK']) ?? 0,
    traces: strs(o['traces']),
  };
}

export interface JobViewHtmlOptions {
  cspSource: string;
  scriptUri: string;
  nonce: string;
  data: JobViewData;
}

export function renderJobViewHtml(opts: JobViewHtmlOptions): string {
  return renderWebviewPage({
    title: 'HUD job',
    nonce: opts.nonce,
    cspSource: opts.cspSource,
    scriptUri: opts.scriptUri,
    body: '<div id="app" role="main"></div>',
    data: { 'hud-job': opts.data },
    allow: { fonts: true },
  });
}
