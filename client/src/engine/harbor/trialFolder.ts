/**
 * The Harbor-style trial folder written next to our trace, so Harbor users
 * find what they know: `result.json` (rewards, per-phase timings, the
 * exception), `agent/` (/logs/agent plus the agent's output), `verifier/`
 * (test output, the reward file, collect hook output) and `artifacts/`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { safeSlug, writeFileAtomic } from '../trace/store';

export interface TrialPaths {
  root: string;
  agent: string;
  verifier: string;
  artifacts: string;
  result: string;
}

export function trialName(taskName: string, rolloutId: string): string {
  return `${safeSlug(taskName.replace(/\//g, '__'))}__${rolloutId.slice(0, 8)}`;
}

export function createTrialFolder(traceDir: string, name: string): TrialPaths {
  const root = join(traceDir, 'trials', name);
  const paths = { root, agent: join(root, 'agent'), verifier: join(root, 'verifier'), artifacts: join(root, 'artifacts'), result: join(root, 'result.json') };
  for (const dir of [paths.agent, paths.verifier, paths.artifacts]) mkdirSync(dir, { recursive: true });
  return paths;
}

export function writeTrialText(dir: string, name: string, text: string): void {
  writeFileSync(join(dir, name), text, 'utf8');
}

export interface Timing {
  started_at: string;
  finished_at: string;
}

/** Field names follow Harbor's TrialResult; `hud_studio` holds what Harbor has no field for. */
export interface TrialResult {
  task_name: string;
  trial_name: string;
  task_path: string;
  task_checksum: string;
  agent_info: { name: string; detail: string };
  verifier_result: { rewards: Record<string, number> } | null;
  exception_info: { phase: string; exception_type: string; exception_message: string } | null;
  started_at: string;
  finished_at: string;
  environment_setup: Timing | null;
  agent_execution: Timing | null;
  verifier: Timing | null;
  hud_studio: {
    rollout_id: string;
    status: string;
    reward: number | null;
    environment_mode: 'shared' | 'separate';
    agent_timed_out: boolean;
    trace_path: string | undefined;
    warnings: string[];
  };
}

export function writeTrialResult(paths: TrialPaths, result: TrialResult): void {
  writeFileAtomic(paths.result, `${JSON.stringify(result, null, 2)}\n`);
}
