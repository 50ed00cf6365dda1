/**
 * What the job view's page and its host exchange: the heat map's data and the
 * page's one request. No Node and no DOM here: the webview bundle imports it.
 */
export interface JobViewCell {
  meanReward: number | null;
  runs: number;
  passed: number;
  passAtK: number;
  traces: string[];
}

export interface JobViewModelRow {
  model: string;
  runs: number;
  meanReward: number | null;
  passAt1: number | null;
  passAtK: number | null;
  errors: { setup: number; actor: number; verifier: number };
  tokens: { input: number; output: number; cached: number } | null;
  wallMs: number | null;
}

export interface JobViewData {
  jobId: string;
  startedAt: string;
  k: number;
  threshold: number;
  tasks: string[];
  models: string[];
  /** `cells[task][model]`. */
  cells: JobViewCell[][];
  modelRows: JobViewModelRow[];
}

/**
 * Host -> page is the embedded data only; page -> host: open a cell's
 * rollouts, or two models' rollouts of one task side by side (compare view).
 */
export type JobViewToHostMessage =
  | { type: 'openTraces'; traces: string[] }
  | {
      type: 'compareModels';
      task: string;
      left: { model: string; trace: string };
      right: { model: string; trace: string };
    };
