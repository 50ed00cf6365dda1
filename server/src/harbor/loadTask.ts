/**
 * Loads a Harbor task directory: validates task.toml and checks that the
 * files it implies exist (instruction, tests, the environment's definition,
 * the separate verifier's Dockerfile). Issues point at task.toml so the editor
 * can show them there.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { indexKeys, locateKey } from './keyLocator';
import type { HarborTaskConfig } from './schema';
import { type HarborTomlIssue, parseTaskToml } from './taskToml';

export const TASK_TOML = 'task.toml';
export const COMPOSE_FILES = ['docker-compose.yaml', 'docker-compose.yml', 'compose.yaml', 'compose.yml'] as const;

export type HarborEnvironmentSource =
  | { kind: 'image'; image: string }
  | { kind: 'dockerfile'; contextDir: string; dockerfile: string }
  | { kind: 'compose'; contextDir: string; composeFile: string };

export interface HarborTask {
  /** Absolute task directory. */
  dir: string;
  tomlPath: string;
  tomlSource: string;
  config: HarborTaskConfig;
  instruction: string;
  environment: HarborEnvironmentSource;
  /** Absolute path of tests/Dockerfile in separate mode (undefined when [verifier.environment] docker_image is set). */
  verifierDockerfile: string | undefined;
  /** Name for traces and trial folders: `[task] name`, else the folder name. */
  name: string;
  warnings: HarborTomlIssue[];
}

export type LoadHarborTaskResult = { ok: true; task: HarborTask } | { ok: false; tomlPath: string; errors: HarborTomlIssue[]; warnings: HarborTomlIssue[] };

/** True when `dir` is a directory holding a task.toml. */
export function isHarborTaskDir(dir: string): boolean {
  try {
    return statSync(dir).isDirectory() && existsSync(join(dir, TASK_TOML));
  } catch {
    return false;
  }
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
      errors: [issue('harbor-missing-file', `${tomlPath} not found (fix: a Harbor task directory needs a task.toml)`, 1, 1, '')],
    };
  }
  const parsed = parseTaskToml(source);
  if (!parsed.ok) return { ok: false, tomlPath, errors: parsed.errors, warnings: parsed.warnings };
  const { config } = parsed;
  const keys = indexKeys(source);
  const errors: HarborTomlIssue[] = [];
  const missing = (relPath: string, key: string[], fix: string): void => {
    const pos = locateKey(keys, key) ?? { line: 1, column: 1 };
    errors.push(issue('harbor-missing-file', `${relPath} is missing (fix: ${fix})`, pos.line, pos.column, key.join('.')));
  };

  if (!isFile(join(dir, 'instruction.md'))) missing('instruction.md', [], 'write the agent\'s instruction in instruction.md');
  if (!isFile(join(dir, 'tests', 'test.sh'))) missing('tests/test.sh', ['verifier'], 'add tests/test.sh, which writes /logs/verifier/reward.txt or reward.json');

  let verifierDockerfile: string | undefined;
  if (config.verifier.environmentMode === 'separate' && !config.verifier.environment?.docker_image) {
    verifierDockerfile = join(dir, 'tests', 'Dockerfile');
    if (!isFile(verifierDockerfile)) {
      const key = config.verifier.environmentModeImplied ? ['verifier', 'environment'] : ['verifier', 'environment_mode'];
      missing('tests/Dockerfile', key, 'a separate verifier is built from tests/Dockerfile: add one, set [verifier.environment] docker_image, or use environment_mode = "shared"');
    }
  }

  const envDir = join(dir, 'environment');
  const composeFile = COMPOSE_FILES.map((f) => join(envDir, f)).find(isFile);
  let environment: HarborEnvironmentSource | undefined;
  if (composeFile) environment = { kind: 'compose', contextDir: envDir, composeFile };
  else if (config.environment.docker_image) environment = { kind: 'image', image: config.environment.docker_image };
  else if (isFile(join(envDir, 'Dockerfile'))) environment = { kind: 'dockerfile', contextDir: envDir, dockerfile: 'Dockerfile' };
  else missing('environment/Dockerfile', ['environment'], 'add environment/Dockerfile or environment/docker-compose.yaml, or set [environment] docker_image');

  if (environment?.kind !== 'compose') {
    config.verifier.collect.forEach((hook, i) => {
      if (hook.service !== 'main') {
        const pos = locateKey(keys, ['verifier', 'collect', i, 'service']) ?? { line: 1, column: 1 };
        errors.push(issue('harbor-schema', `verifier.collect[${i}].service = "${hook.service}" names a compose service, but this task has no docker-compose.yaml (fix: remove service or use "main")`, pos.line, pos.column, `verifier.collect[${i}].service`));
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
      instruction: readFileSync(join(dir, 'instruction.md'), 'utf8'),
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

function issue(code: HarborTomlIssue['code'], message: string, line: number, column: number, key: string): HarborTomlIssue {
  return { code, severity: 'error', message, line, column, key };
}
