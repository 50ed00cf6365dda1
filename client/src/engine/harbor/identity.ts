/**
 * How a Harbor task is named in traces: the task directory is its reference,
 * `[task] name` (or the folder name) its environment and slug, and the hash
 * covers everything that decides a trial's outcome (task.toml, instruction,
 * tests), so an old trace can show what it ran.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { TaskIdentity } from '../../../../common/trace/schema';
import type { HarborTask } from '../../../../common/harbor';

export function harborTaskIdentity(task: HarborTask, ref: string): TaskIdentity {
  const testSh = readText(join(task.dir, 'tests', 'test.sh'));
  const { org, short } = splitName(task.name);
  return {
    ref,
    kind: 'harbor',
    env: org,
    id: short,
    args: {},
    slug: short,
    ...(task.config.task.description ? { description: task.config.task.description } : {}),
    sourceHash: hashFolderFiles(task.dir, ['task.toml', 'instruction.md', 'tests', 'environment']),
    source: `# task.toml\n${task.tomlSource}\n# tests/test.sh\n${testSh}`,
    runtimeConfig: { environmentMode: task.config.verifier.environmentMode, environment: task.environment.kind },
  };
}

export function harborVerifierIdentity(task: HarborTask): Omit<TaskIdentity, 'ref'> {
  const { org, short } = splitName(task.name);
  return {
    kind: 'harbor',
    env: org,
    id: `${short}/tests/test.sh`,
    args: {},
    slug: `${short}-tests`,
    sourceHash: hashFolderFiles(task.dir, ['tests']),
    runtimeConfig: { environmentMode: task.config.verifier.environmentMode },
  };
}

/** `org/name` -> org + name; a bare folder name is both. */
function splitName(name: string): { org: string; short: string } {
  const at = name.indexOf('/');
  return at > 0 ? { org: name.slice(0, at), short: name.slice(at + 1) } : { org: name, short: name };
}

/** SHA-256 over the relative paths and contents of the named files/folders (sorted, deterministic). */
export function hashFolderFiles(root: string, names: string[]): string {
  const h = createHash('sha256');
  const visit = (abs: string): void => {
    let st;
    try {
      st = statSync(abs);
    } catch {
      return;
    }
    if (st.isDirectory()) {
      for (const n of readdirSync(abs).sort()) visit(join(abs, n));
      return;
    }
    h.update(`${relative(root, abs).split('\\').join('/')}\0`);
    h.update(readFileSync(abs));
    h.update('\0');
  };
  for (const n of names) visit(join(root, n));
  return h.digest('hex');
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
