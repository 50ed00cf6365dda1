/**
 * Loads a Harbor task directory: validates task.toml and checks that the
 * files it implies exist (instruction, tests, the environment's definition,
 * the separate verifier's Dockerfile). Issues point at task.toml so the editor
 * can show them there.
 */
import { existsSync, readFileSync, readdirSync, statSync, type Dirent } from 'node:fs';
import { join, resolve } from 'node:path';
import { indexKeys, locateKey } from './keyLocator';
import type { HarborTaskConfig } from './schema';
import { type HarborTomlIssue, parseTaskToml } from './taskToml';

export const TASK_TOML = 'task.toml';
/** Harbor's only environment compose file; other compose files in environment/ are task content. */
export const COMPOSE_FILE = 'docker-compose.yaml';

export type HarborEnvironmentSource =
  | { kind: 'image'; image: string }
  | { kind: 'dockerfile'; contextDir: string; dockerfile: string }
  /** A task overlay merged onto the base Harbor gives `main` (its build context or docker_image). */
  | { kind: 'compose'; contextDir: string; composeFile: string; main: { image: string } | { dockerfile: string } };

export interface HarborTask {
  /** Absolute task directory. */
  dir: string;
  tomlPath: string;
  tomlSource: string;
  config: HarborTaskConfig;
  /** Canary lines stripped and newlines normalised, as Harbor hands it to the agent ('' for multi-step tasks). */
  instruction: string;
  /** Multi-step tasks: each step's instruction, in order. */
  stepInstructions: string[];
  environment: HarborEnvironmentSource;
  /** Absolute path of tests/Dockerfile in separate mode (undefined when [verifier.environment] docker_image is set). */
  verifierDockerfile: string | undefined;
  /** Name for traces and trial folders: `[task] name`, else the folder name. */
  name: string;
  warnings: HarborTomlIssue[];
}

export type LoadHarborTaskResult =
  | { ok: true; task: HarborTask }
  | { ok: false; tomlPath: string; errors: HarborTomlIssue[]; warnings: HarborTomlIssue[] };

/** True when `dir` is a directory holding a task.toml. */
export function isHarborTaskDir(dir: string): boolean {
  try {
    return statSync(dir).isDirectory() && existsSync(join(dir, TASK_TOML));
  } catch {
    return false;
  }
}

/**
 * A dataset: a folder (not itself a task, with no env.py or task files of its
 * own) holding Harbor task directories, found up to three levels down. Sorted;
 * undefined when `dir` is not one.
 */
export function harborDatasetTasks(dir: string): string[] | undefined {
  let entries: Dirent[];
  try {
    if (!statSync(dir).isDirectory() || isHarborTaskDir(dir)) return undefined;
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return undefined;
  }
  if (entries.some((e) => e.isFile() && /\.(py|json|jsonl)$/.test(e.name))) return undefined;
  const found: string[] = [];
  const visit = (d: string, depth: number): void => {
    if (isHarborTaskDir(d)) {
      found.push(d);
      return;
    }
    if (depth === 0) return;
    let subs: Dirent[];
    try {
      subs = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of subs) if (e.isDirectory() && !e.name.startsWith('.')) visit(join(d, e.name), depth - 1);
  };
  for (const e of entries) if (e.isDirectory() && !e.name.startsWith('.')) visit(join(dir, e.name), 2);
  return found.length ? found.sort() : undefined;
}

export function loadHarborTask(dirArg: string): LoadHarborTaskResult {
  const dir = resolve(dirArg);
  const tomlPath = join(dir, TASK_TOML);
  let source: string;
  try {
    source = readFileSync(tomlPath, 'utf8');
  } catch {
    return {
      ok: false,
      tomlPath,
      warnings: [],
      errors: [
        issue(
          'harbor-missing-file',
          `${tomlPath} not found (fix: a Harbor task directory needs a task.toml)`,
          1,
          1,
          '',
        ),
      ],
    };
  }
  const parsed = parseTaskToml(source);
  if (!parsed.ok) return { ok: false, tomlPath, errors: parsed.errors, warnings: parsed.warnings };
  const { config } = parsed;
  const keys = indexKeys(source);
  const errors: HarborTomlIssue[] = [];
  const missing = (relPath: string, key: (string | number)[], fix: string): void => {
    const pos = locateKey(keys, key) ?? { line: 1, column: 1 };
    errors.push(
      issue('harbor-missing-file', `${relPath} is missing (fix: ${fix})`, pos.line, pos.column, key.join('.')),
    );
  };

  if (config.environment.os === 'windows') {
    const pos = locateKey(keys, ['environment', 'os']) ?? { line: 1, column: 1 };
    errors.push(
      issue(
        'harbor-unsupported',
        'environment.os = "windows": Windows containers are not supported on Linux, so HUD Studio cannot run this task (fix: run it with Harbor on a Windows Docker host)',
        pos.line,
        pos.column,
        'environment.os',
      ),
    );
    return { ok: false, tomlPath, errors, warnings: parsed.warnings };
  }
  const steps = config.steps ?? [];
  if (steps.length === 0) {
    if (!isFile(join(dir, 'instruction.md')))
      missing('instruction.md', [], "write the agent's instruction in instruction.md");
    const separateOwnsTests = config.verifier.environmentMode === 'separate';
    if (!separateOwnsTests && !isFile(join(dir, 'tests', 'test.sh')))
      missing(
        'tests/test.sh',
        ['verifier'],
        'add tests/test.sh, which writes /logs/verifier/reward.txt or reward.json',
      );
  } else {
    steps.forEach((step, i) => {
      const stepDir = join(dir, 'steps', step.name);
      if (!isFile(join(stepDir, 'instruction.md')))
        missing(
          `steps/${step.name}/instruction.md`,
          ['steps', i, 'name'],
          `write step "${step.name}"'s instruction in steps/${step.name}/instruction.md`,
        );
      const separate = step.verifier.environmentMode === 'separate';
      if (!separate && !isFile(join(stepDir, 'tests', 'test.sh')) && !isFile(join(dir, 'tests', 'test.sh'))) {
        missing(
          `steps/${step.name}/tests/test.sh`,
          ['steps', i, 'name'],
          `add steps/${step.name}/tests/test.sh or a shared tests/test.sh`,
        );
      }
    });
  }

  let verifierDockerfile: string | undefined;
  if (!config.steps && config.verifier.environmentMode === 'separate' && !config.verifier.environment?.docker_image) {
    verifierDockerfile = join(dir, 'tests', 'Dockerfile');
    if (!isFile(verifierDockerfile)) {
      const key = config.verifier.environmentModeImplied
        ? ['verifier', 'environment']
        : ['verifier', 'environment_mode'];
      missing(
        'tests/Dockerfile',
        key,
        'a separate verifier is built from tests/Dockerfile: add one, set [verifier.environment] docker_image, or use environment_mode = "shared"',
      );
    }
  }

  const envDir = join(dir, 'environment');
  const composeFile = join(envDir, COMPOSE_FILE);
  const hasDockerfile = isFile(join(envDir, 'Dockerfile'));
  let environment: HarborEnvironmentSource | undefined;
  if (isFile(composeFile)) {
    // Harbor's base file gives `main` the task's docker_image, else environment/Dockerfile; the task's file
    // overlays it.
    const main = config.environment.docker_image
      ? { image: config.environment.docker_image }
      : hasDockerfile
        ? { dockerfile: 'Dockerfile' }
        : undefined;
    if (main) environment = { kind: 'compose', contextDir: envDir, composeFile, main };
    else
      missing(
        'environment/Dockerfile',
        ['environment'],
        "the compose file's main service is built from environment/Dockerfile: add one, or set [environment] docker_image",
      );
  } else if (config.environment.docker_image) environment = { kind: 'image', image: config.environment.docker_image };
  else if (hasDockerfile) environment = { kind: 'dockerfile', contextDir: envDir, dockerfile: 'Dockerfile' };
  else
    missing(
      'environment/Dockerfile',
      ['environment'],
      'add environment/Dockerfile or environment/docker-compose.yaml, or set [environment] docker_image',
    );

  if (environment?.kind !== 'compose') {
    config.verifier.collect.forEach((hook, i) => {
      if (hook.service !== 'main') {
        const pos = locateKey(keys, ['verifier', 'collect', i, 'service']) ?? { line: 1, column: 1 };
        errors.push(
          issue(
            'harbor-schema',
            `verifier.collect[${i}].service = "${hook.service}" names a compose service, but this task has no docker-compose.yaml (fix: remove service or use "main")`,
            pos.line,
            pos.column,
            `verifier.collect[${i}].service`,
          ),
        );
      }
    });
  }

  if (errors.length > 0 || !environment) return { ok: false, tomlPath, errors, warnings: parsed.warnings };
  const folderName = dir.split(/[\\/]/).filter(Boolean).pop() ?? 'task';
  return {
    ok: true,
    task: {
      dir,
      tomlPath,
      tomlSource: source,
      config,
      instruction: steps.length ? '' : readInstruction(join(dir, 'instruction.md')),
      stepInstructions: steps.map((step) => readInstruction(join(dir, 'steps', step.name, 'instruction.md'))),
      environment,
      verifierDockerfile,
      name: config.task.name ?? folderName,
      warnings: parsed.warnings,
    },
  };
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function issue(
  code: HarborTomlIssue['code'],
  message: string,
  line: number,
  column: number,
  key: string,
): HarborTomlIssue {
  return { code, severity: 'error', message, line, column, key };
}

/** Harbor reads text with universal newlines, then drops leading canary comment lines and the blank lines after. */
export function normaliseInstruction(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let i = 0;
  while (i < lines.length && /^(<!--.*canary.*-->|#.*canary.*)$/i.test(lines[i]!.trim())) i++;
  while (i < lines.length && lines[i]!.trim() === '') i++;
  return lines.slice(i).join('\n');
}

function readInstruction(path: string): string {
  return normaliseInstruction(readFileSync(path, 'utf8'));
}
