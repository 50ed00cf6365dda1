/**
 * `check`'s findings from the Dockerfile beside an env.py (docs/security.md):
 * what the image lets the agent do to a reward that the actor's own
 * substrate grades (no verifier, or one in the same environment).
 *
 * - A root agent (`LABEL dev.hud-studio.agent-user=root`) could write it.
 * - A PATH that holds a folder the agent may write (the workspace, a shared
 *   temporary folder) lets it plant the programs a grader runs by name; the
 *   engine marks such a reward forgeable when it runs, and this says so
 *   before.
 */
import type { IndexedTask } from '../../../common/lspMessages';
import { agentWritableFolders } from '../engine/docker/enginePath';
import type { PlacedFinding } from './checkGolden';

export const ROOT_AGENT_CODE = 'root-agent-forgeable';

/** `LABEL dev.hud-studio.agent-user=root` (or `"root"`, or `0`) in a Dockerfile. */
const ROOT_AGENT_LABEL_LINE = /^\s*LABEL\s[^\n]*\bdev\.hud-studio\.agent-user\s*=\s*["']?(root|0)["']?(\s|$)/im;

/**
 * Tasks of an environment whose image asks for a root agent and whose
 * reward comes from the actor's own substrate (no verifier, or one in the
 * same environment): the agent could write that reward itself.
 */
export function rootAgentFindings(dockerfile: string | undefined, tasks: readonly IndexedTask[]): PlacedFinding[] {
  if (dockerfile === undefined || !ROOT_AGENT_LABEL_LINE.test(dockerfile)) return [];
  return selfGraded(tasks).map((t) => ({
    range: t.range,
    message: `task ${t.label} runs a root agent (the Dockerfile beside it sets dev.hud-studio.agent-user=root) and its reward comes from the actor's own substrate, so the agent could forge it (fix: give it a verifier in an environment of its own: task.verifier = other_env.template(...))`,
  }));
}

/** Tasks whose reward comes from the actor's own substrate. */
function selfGraded(tasks: readonly IndexedTask[]): IndexedTask[] {
  return tasks.filter((t) => t.kind === 'hud' && (!t.verifier || t.verifier.sameEnvironment));
}

export const SEARCH_PATH_CODE = 'search-path-forgeable';

/**
 * The value PATH ends with after the Dockerfile's ENV instructions (both
 * `ENV PATH=...` and `ENV PATH ...`), with the variables ENV set before it
 * expanded; undefined when no ENV sets it.
 */
export function dockerfilePath(dockerfile: string): string | undefined {
  const vars = new Map<string, string>();
  const expand = (v: string): string =>
    v.replace(
      /\$(?:\{(\w+)\}|(\w+))/g,
      (m, a: string | undefined, b: string | undefined) => vars.get(a ?? b ?? '') ?? m,
    );
  for (const line of dockerfile.replace(/\\\r?\n/g, ' ').split(/\r?\n/)) {
    const env = /^\s*ENV\s+(.*)$/i.exec(line);
    if (!env) continue;
    const body = env[1]!.trim();
    const legacy = /^(\w+)\s+(?!\w+=)(.*)$/.exec(body);
    if (legacy) {
      vars.set(legacy[1]!, expand(legacy[2]!.trim().replace(/^(["'])(.*)\1$/, '$2')));
      continue;
    }
    for (const m of body.matchAll(/(\w+)=("([^"]*)"|'([^']*)'|(\S*))/g))
      vars.set(m[1]!, m[4] !== undefined ? m[4] : expand(m[3] ?? m[5] ?? ''));
  }
  return vars.get('PATH');
}

/** Tasks graded on their own substrate whose image's PATH holds a folder the agent may write. */
export function searchPathFindings(dockerfile: string | undefined, tasks: readonly IndexedTask[]): PlacedFinding[] {
  const path = dockerfile === undefined ? undefined : dockerfilePath(dockerfile);
  if (path === undefined) return [];
  // A variable the Dockerfile does not set (the base image's $PATH) is left as written: nothing is known of it.
  const reachable = agentWritableFolders(path.split(':').filter((d) => !d.includes('$')));
  if (!reachable.length) return [];
  const named = reachable
    .map((d) =>
      d.startsWith('/') ? JSON.stringify(d) : `${JSON.stringify(d)} (relative: under the folder a grader runs in)`,
    )
    .join(', ');
  return selfGraded(tasks).map((t) => ({
    range: t.range,
    message: `task ${t.label} is graded on the actor's own substrate, and the Dockerfile beside it puts ${named} on PATH, where the agent may write: a program a grader runs by name (python3, pytest) may be the agent's, so the reward will be marked forgeable (fix: keep the workspace and temporary folders off PATH, or give the task a verifier in an environment of its own: task.verifier = other_env.template(...))`,
  }));
}
