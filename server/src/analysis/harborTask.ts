/**
 * Harbor task directories: `task.toml` is validated by the shared schema
 * (common/harbor/taskToml.ts, also used by the engine) and the files the
 * configuration implies must exist beside it, and its golden/ solutions
 * must be in the shape the oracle runs (docs/grader-workbench.md).
 */
import { dirname, join, relative, sep } from 'node:path';
import { atOrBelow, normalContainerPath } from '../../../common/containerPath';
import type { IndexedTask } from '../../../common/lspMessages';
import type { HarborGoldenProblem } from '../../../common/golden/solutions';
import { referencedVariables } from '../../../common/harbor/envExpansion';
import { parseTaskToml } from '../../../common/harbor/taskToml';
import type { HarborTaskConfig } from '../../../common/harbor/schema';
import type { FileProblem, HarborFacts } from './facts';
import { problem, SEVERITY, ZERO_RANGE } from './diagnostics';
import type { LinkResult } from './link';
import type { FileIdentity } from './linkPython';

export function extractHarborFacts(text: string, taskDirRel: string): HarborFacts {
  const result = parseTaskToml(text);
  const issues: FileProblem[] = [...result.warnings, ...(result.ok ? [] : result.errors)].map((i) => {
    const start = { line: Math.max(0, i.line - 1), character: Math.max(0, i.column - 1) };
    const severity = i.severity === 'warning' ? 'warning' : (SEVERITY[i.code as keyof typeof SEVERITY] ?? 'error');
    return {
      code: i.code,
      severity,
      message: i.message,
      range: { start, end: { line: start.line, character: start.character + Math.max(1, i.key.length) } },
    };
  });
  const label = (result.ok ? result.config.task.name : undefined) ?? (taskDirRel.split('/').pop() || taskDirRel);
  const facts: HarborFacts = { kind: 'harbor', ref: taskDirRel, label, issues };
  // Until task.toml parses, the files every single-step task needs are still checked.
  facts.requiredFiles = requiredFiles(undefined, taskDirRel);
  if (result.ok) {
    facts.environmentMode = result.config.verifier.environmentMode;
    facts.requiredFiles = requiredFiles(result.config, taskDirRel);
    const user = result.config.agent.user;
    facts.agentMayBeRoot = user === undefined || /^(root|0)(:.*)?$/.test(user);
    const over = artifactOverTests(result.config);
    if (over) facts.artifactOverTests = over;
    const fromHost = referencedVariables(result.config.environment.env);
    if (fromHost.length) facts.hostVariables = fromHost;
  }
  return facts;
}

/**
 * The first pass whose separate verifier gets a declared artifact at or above the folder its tests run in: the
 * agent's files then land where a python3 the tests start looks modules up first (docs/security.md, "Modules
 * where Harbor's tests run").
 */
function artifactOverTests(config: HarborTaskConfig): HarborFacts['artifactOverTests'] {
  const passes = config.steps ?? [{ verifier: config.verifier, artifacts: config.artifacts }];
  for (const pass of passes) {
    const workdir = pass.verifier.environment?.workdir;
    if (!workdir) continue;
    const tests = normalContainerPath(workdir);
    for (const a of pass.artifacts)
      if (atOrBelow(tests, normalContainerPath(a.source))) return { artifact: a.source, workdir };
  }
  return undefined;
}

export interface FileProbe {
  /** Records the path as a dependency and says whether it exists. */
  exists(path: string): boolean;
  /** Records the task's golden/ folder (and all under it) as a dependency and reads what is wrong in it. */
  goldenProblems(taskDir: string): HarborGoldenProblem[];
}

export function linkHarbor(file: FileIdentity, facts: HarborFacts, probe: FileProbe): LinkResult {
  const dir = dirname(file.path);
  const problems = [...facts.issues];
  for (const need of facts.requiredFiles ?? []) {
    if (need.path.split('|').some((p) => probe.exists(join(dir, p)))) continue;
    problems.push(
      problem(
        need.code,
        ZERO_RANGE,
        `Harbor task ${facts.ref} has no ${need.path.split('|').join(' or ')} (fix: ${need.fix})`,
      ),
    );
  }
  if (facts.environmentMode === 'shared' && facts.agentMayBeRoot) {
    problems.push(
      problem(
        'harbor-shared-forgeable',
        ZERO_RANGE,
        `Harbor task ${facts.ref} verifies in the agent's container: an agent running as root there controls every program the tests run, so its reward is marked forgeable (fix: set [verifier] environment_mode = "separate" for a reward the agent cannot touch)`,
      ),
    );
  }
  if (facts.artifactOverTests) {
    const { artifact, workdir } = facts.artifactOverTests;
    problems.push(
      problem(
        'harbor-artifacts-where-tests-run',
        ZERO_RANGE,
        `Harbor task ${facts.ref} copies the artifact ${JSON.stringify(artifact)} into its separate verifier over ${JSON.stringify(workdir)}, where the tests run: a module the agent leaves there under the name of one of Python's own (json.py) is what a python3 the tests start there imports, so such a reward is marked forgeable (fix: declare only the files the tests read, or give [verifier.environment] a workdir of the tests' own)`,
      ),
    );
  }
  if (facts.hostVariables) {
    const names = facts.hostVariables.map((v) => `\${${v}}`).join(', ');
    problems.push(
      problem(
        'harbor-host-variables-to-agent',
        ZERO_RANGE,
        `Harbor task ${facts.ref} puts the host's ${names} into the agent's container ([environment] env): the agent can read ${facts.hostVariables.length > 1 ? 'them' : 'it'}, whatever the task says (fix: pass only what the agent's own tools need; a grader's key goes in [verifier] env of a separate verifier)`,
      ),
    );
  }
  for (const p of probe.goldenProblems(dir)) {
    problems.push(
      problem(
        'harbor-golden-malformed',
        ZERO_RANGE,
        `Harbor golden solution ${join(facts.ref, relative(dir, p.path)).split(sep).join('/')}: ${p.message}`,
      ),
    );
  }
  const task: IndexedTask = { ref: facts.ref, kind: 'harbor', label: facts.label, uri: file.uri, range: ZERO_RANGE };
  if (facts.environmentMode) task.environmentMode = facts.environmentMode;
  return { templates: [], tasks: [task], problems, uses: [] };
}

/** What Harbor needs on disk for this configuration (none for a Windows task, which cannot run here anyway). */
function requiredFiles(config: HarborTaskConfig | undefined, ref: string): NonNullable<HarborFacts['requiredFiles']> {
  if (config?.environment.os === 'windows') return [];
  const out: NonNullable<HarborFacts['requiredFiles']> = [];
  const testsFix = `create ${ref}/tests/test.sh that writes /logs/verifier/reward.txt or reward.json`;
  if (config?.steps) {
    for (const step of config.steps) {
      out.push({
        path: `steps/${step.name}/instruction.md`,
        code: 'harbor-missing-instruction',
        fix: `write step "${step.name}"'s instruction in ${ref}/steps/${step.name}/instruction.md`,
      });
      if (step.verifier.environmentMode === 'shared')
        out.push({
          path: `steps/${step.name}/tests/test.sh|tests/test.sh`,
          code: 'harbor-missing-test-sh',
          fix: testsFix,
        });
    }
    return out;
  }
  out.push({
    path: 'instruction.md',
    code: 'harbor-missing-instruction',
    fix: `create ${ref}/instruction.md with the instructions`,
  });
  if (!config || config.verifier.environmentMode === 'shared')
    out.push({ path: 'tests/test.sh', code: 'harbor-missing-test-sh', fix: testsFix });
  else if (!config.verifier.environment?.docker_image) {
    out.push({
      path: 'tests/Dockerfile',
      code: 'harbor-missing-tests-dockerfile',
      fix: `create ${ref}/tests/Dockerfile (it builds the separate verifier and owns /tests), or set [verifier] environment_mode = "shared"`,
    });
  }
  return out;
}
