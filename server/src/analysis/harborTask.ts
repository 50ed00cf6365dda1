/**
 * Harbor task directories: `task.toml` is validated by the shared schema
 * (server/src/harbor/taskToml.ts, also used by the engine) and the files the
 * configuration implies must exist beside it.
 */
import { dirname, join } from 'node:path';
import type { IndexedTask } from '../protocol';
import { parseTaskToml } from '../harbor/taskToml';
import type { FileProblem, HarborFacts } from './facts';
import { problem, SEVERITY, ZERO_RANGE } from './diagnostics';
import type { LinkResult } from './link';
import type { FileIdentity } from './linkPython';

export function extractHarborFacts(text: string, taskDirRel: string): HarborFacts {
  const result = parseTaskToml(text);
  const issues: FileProblem[] = [...result.warnings, ...(result.ok ? [] : result.errors)].map((i) => {
    const start = { line: Math.max(0, i.line - 1), character: Math.max(0, i.column - 1) };
    const severity = i.severity === 'warning' ? 'warning' : (SEVERITY[i.code as keyof typeof SEVERITY] ?? 'error');
    return { code: i.code, severity, message: i.message, range: { start, end: { line: start.line, character: start.character + Math.max(1, i.key.length) } } };
  });
  const label = (result.ok ? result.config.task.name : undefined) ?? (taskDirRel.split('/').pop() || taskDirRel);
  const facts: HarborFacts = { kind: 'harbor', ref: taskDirRel, label, issues };
  if (result.ok) facts.environmentMode = result.config.verifier.environmentMode;
  return facts;
}

export interface FileProbe {
  /** Records the path as a dependency and says whether it exists. */
  exists(path: string): boolean;
}

export function linkHarbor(file: FileIdentity, facts: HarborFacts, probe: FileProbe): LinkResult {
  const dir = dirname(file.path);
  const problems = [...facts.issues];
  if (!probe.exists(join(dir, 'instruction.md'))) {
    problems.push(problem('harbor-missing-instruction', ZERO_RANGE, `Harbor task ${facts.ref} has no instruction.md, so the agent gets no task (fix: create ${facts.ref}/instruction.md with the instructions)`));
  }
  if (!probe.exists(join(dir, 'tests', 'test.sh'))) {
    problems.push(problem('harbor-missing-test-sh', ZERO_RANGE, `Harbor task ${facts.ref} has no tests/test.sh, so it cannot be verified (fix: create ${facts.ref}/tests/test.sh that writes /logs/verifier/reward.txt or reward.json)`));
  }
  if (facts.environmentMode === 'separate' && !probe.exists(join(dir, 'tests', 'Dockerfile'))) {
    problems.push(
      problem(
        'harbor-missing-tests-dockerfile',
        ZERO_RANGE,
        `Harbor task ${facts.ref} verifies in a separate environment but has no tests/Dockerfile to build it from (fix: create ${facts.ref}/tests/Dockerfile, or set [verifier] environment_mode = "shared")`,
      ),
    );
  }
  const task: IndexedTask = { ref: facts.ref, kind: 'harbor', label: facts.label, uri: file.uri, range: ZERO_RANGE };
  if (facts.environmentMode) task.environmentMode = facts.environmentMode;
  return { templates: [], tasks: [task], problems, uses: [] };
}
