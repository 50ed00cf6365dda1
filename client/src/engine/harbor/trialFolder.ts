/**
 * The trial folder written next to our trace, laid out and named as Harbor
 * writes its own (docs/harbor.md, "Trial folder"), so Harbor's viewer and job
 * summaries read it: `result.json` (Harbor's TrialResult), `config.json`
 * (its TrialConfig), `trial.log`, `exception.txt` on failure, `agent/`
 * (/logs/agent, the oracle's output, `exit-code.txt`), `verifier/` (merged
 * test output, the reward file) and `artifacts/` (with `manifest.json`).
 * What Harbor has no field for sits under `hud_studio`.
 */
import { appendFileSync, constants, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { replaceFile, safeSlug, writeFileAtomic } from '../trace/store';

export interface TrialPaths {
  root: string;
  agent: string;
  verifier: string;
  artifacts: string;
  result: string;
  config: string;
  log: string;
  exception: string;
  manifest: string;
}

/** Harbor's trial names: the task's short name (at most 32 characters) and a short id. */
export function trialName(taskName: string, rolloutId: string): string {
  const short = taskName.split('/').pop() ?? taskName;
  const head =
    safeSlug(short)
      .slice(0, 32)
      .replace(/[_-]+$/, '') || 'task';
  return `${head}__${rolloutId.replace(/-/g, '').slice(0, 7)}`;
}

export function createTrialFolder(trialsDir: string, name: string): TrialPaths {
  const root = join(trialsDir, name);
  const paths: TrialPaths = {
    root,
    agent: join(root, 'agent'),
    verifier: join(root, 'verifier'),
    artifacts: join(root, 'artifacts'),
    result: join(root, 'result.json'),
    config: join(root, 'config.json'),
    log: join(root, 'trial.log'),
    exception: join(root, 'exception.txt'),
    manifest: join(root, 'artifacts', 'manifest.json'),
  };
  for (const dir of [paths.agent, paths.verifier, paths.artifacts]) mkdirSync(dir, { recursive: true });
  writeFileSync(paths.log, '');
  return paths;
}

/**
 * Replaces `dir/name` rather than writing through it: the folder may already
 * hold what a container left there (a copy of /logs/agent or
 * /logs/verifier), and a link of that name would take the write onto
 * whatever host file it names.
 */
export function writeTrialText(dir: string, name: string, text: string): void {
  writeFileAtomic(join(dir, name), text);
}

/** `from` copied to `dir/name`, replacing whatever is there as writeTrialText does. */
export function keepTrialFile(from: string, dir: string, name: string): void {
  replaceFile(join(dir, name), (tmp) => copyFileSync(from, tmp, constants.COPYFILE_EXCL));
}

/** One line of trial.log (Harbor's own log is free text too). */
export function appendTrialLog(paths: TrialPaths, line: string): void {
  try {
    appendFileSync(paths.log, `${new Date().toISOString()} ${line.replace(/\n/g, '\n    ')}\n`);
  } catch {
    // The trace keeps every event; a lost log line must not end the trial.
  }
}

export interface Timing {
  started_at: string;
  finished_at: string;
}

export interface ArtifactManifestEntry {
  source: string;
  destination: string;
  type: 'file' | 'directory';
  status: 'ok' | 'failed' | 'empty' | 'skipped';
  service: string | null;
}

export interface ExceptionInfo {
  exception_type: string;
  exception_message: string;
  exception_traceback: string;
  occurred_at: string;
}

/** Harbor's TrialConfig, with what HUD Studio ran filled in and Harbor's defaults elsewhere. */
export interface TrialConfigJson {
  task: { path: string; source: string | null };
  trial_name: string;
  trials_dir: string;
  timeout_multiplier: number;
  agent: {
    name: string;
    override_timeout_sec: number | null;
    kwargs: Record<string, unknown>;
    env: Record<string, string>;
  };
  environment: {
    type: 'docker';
    force_build: boolean;
    delete: boolean;
    env: Record<string, string>;
    kwargs: Record<string, unknown>;
  };
  verifier: { env: Record<string, string>; disable: boolean };
  artifacts: string[];
  job_id: string | null;
}

export interface StepResultJson {
  step_name: string;
  agent_result: Record<string, unknown> | null;
  verifier_result: { rewards: Record<string, number | string> } | null;
  exception_info: ExceptionInfo | null;
  agent_execution: Timing | null;
  verifier: Timing | null;
}

/** Field names and types follow Harbor's TrialResult; `hud_studio` holds what Harbor has no field for. */
export interface TrialResult {
  id: string;
  task_name: string;
  trial_name: string;
  trial_uri: string;
  task_id: { path: string };
  source: string | null;
  task_checksum: string;
  config: TrialConfigJson;
  agent_info: { name: string; version: string; model_info: null };
  agent_result: Record<string, unknown> | null;
  verifier_result: { rewards: Record<string, number | string> } | null;
  exception_info: ExceptionInfo | null;
  started_at: string;
  finished_at: string;
  environment_setup: Timing | null;
  agent_setup: Timing | null;
  agent_execution: Timing | null;
  verifier: Timing | null;
  step_results: StepResultJson[] | null;
  hud_studio: {
    rollout_id: string;
    status: string;
    reward: number | null;
    environment_mode: 'shared' | 'separate';
    agent_timed_out: boolean;
    /** Shared-mode reward earned by a root agent: the agent controlled every program the tests ran. */
    forgeable: boolean;
    trace_path: string | undefined;
    warnings: string[];
  };
}

export function trialUri(paths: TrialPaths): string {
  return pathToFileURL(paths.root).href;
}

/** JSON has no NaN or Infinity; Harbor's float fields read these strings back as the same numbers. */
export function jsonRewards(rewards: Record<string, number>): Record<string, number | string> {
  return Object.fromEntries(
    Object.entries(rewards).map(([k, v]) => [
      k,
      Number.isFinite(v) ? v : Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity',
    ]),
  );
}

/** A UUID, or null (Harbor's job_id must be one). */
export function uuidOrNull(id: string | undefined): string | null {
  return id && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id) ? id : null;
}

export function writeTrialResult(paths: TrialPaths, result: TrialResult): void {
  writeFileAtomic(paths.config, `${JSON.stringify(result.config, null, 2)}\n`);
  if (result.exception_info) writeFileAtomic(paths.exception, `${result.exception_info.exception_traceback}\n`);
  writeFileAtomic(paths.result, `${JSON.stringify(result, null, 2)}\n`);
}

export function writeManifest(manifestPath: string, entries: ArtifactManifestEntry[]): void {
  if (entries.length > 0) writeFileAtomic(manifestPath, `${JSON.stringify(entries, null, 2)}\n`);
}
