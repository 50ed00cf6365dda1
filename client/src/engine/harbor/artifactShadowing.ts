/**
 * A separate verifier gets the declared artifacts at their own paths (docs/security.md, "Where the graders look
 * programs up"). When the folder the tests run in is one of them, or inside one, the agent's files land there,
 * and a `python3` the tests start there with `-`, `-c` or `-m` looks modules up in that folder first: an
 * artifact `/app/json.py` is what the tests' `import json` runs, with the verifier's rights. Harbor's behaviour is
 * kept (the tests import what they find); the reward is marked forgeable, naming the modules.
 *
 * Which of the names would shadow a module of the verifier's own Python is asked of that Python, by the turn-end
 * check's module reading (providers/turnEndCheck.ts) over the folder; only entries the artifacts put there count,
 * not the verifier image's own files.
 */
import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { join, posix } from 'node:path';
import { atOrBelow, normalContainerPath } from '../../../../common/containerPath';
import type { ManagedContainer } from '../docker/types';
import { errorMessage } from '../errors';
import {
  TURN_END_CHECK_SCRIPT,
  TURN_END_CHECK_TIMEOUT_MS,
  listed,
  shadowingWhy,
  turnEndCheckArgs,
  turnEndCheckOf,
  type ShadowingModule,
  type ShadowingWords,
} from '../providers/turnEndCheck';
import { NO_PYTHON, RUN_WITH_SYSTEM_PYTHON } from './agentTurnEnd';

/** An artifact as it was copied into the verifier: its path there, and the host copy it came from. */
export interface CopiedArtifact {
  containerPath: string;
  hostPath: string;
}

/** The entries the artifacts put directly in `folder` (an absolute path in the verifier), by path there. */
export function artifactEntriesIn(folder: string, artifacts: readonly CopiedArtifact[]): Map<string, string> {
  const dir = normalContainerPath(folder);
  const out = new Map<string, string>();
  for (const a of artifacts) {
    const at = normalContainerPath(a.containerPath);
    if (!existsSync(a.hostPath)) continue;
    if (posix.dirname(at) === dir && at !== dir) out.set(at, a.hostPath);
    if (!atOrBelow(dir, at)) continue;
    const hostDir = join(a.hostPath, ...posix.relative(at, dir).split('/').filter(Boolean));
    if (!existsSync(hostDir) || !lstatSync(hostDir).isDirectory()) continue;
    for (const name of readdirSync(hostDir)) out.set(posix.join(dir, name), join(hostDir, name));
  }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** A file any python3 could import by its name (source, bytecode, extension) or a package folder. */
function moduleLike(hostPath: string): boolean {
  const st = lstatSync(hostPath);
  if (st.isFile()) return MODULE_FILE.test(hostPath);
  return st.isDirectory() && readdirSync(hostPath).some((n) => /^__init__\./.test(n) && MODULE_FILE.test(n));
}
const MODULE_FILE = /\.(?:py|pyc|pyw|so)$/;

/**
 * Why the reward is forgeable, or undefined: the artifacts' modules that shadow the verifier's own, in the folder
 * its tests run in or in a folder of its PYTHONPATH (which every python3 it starts searches before its own).
 */
export async function artifactShadowingWhy(
  container: ManagedContainer,
  testsFolder: string,
  artifacts: readonly CopiedArtifact[],
): Promise<string | undefined> {
  const said = await container.exec(['sh', '-c', 'printf %s "$PYTHONPATH"'], {
    user: 'root',
    cwd: '/',
    timeoutMs: 30_000,
  });
  const onPath = said.exitCode === 0 ? said.stdout.split(':').map((f) => posix.resolve(testsFolder, f)) : [];
  const places: [string, Partial<ShadowingWords>][] = [[testsFolder, TESTS_FOLDER]];
  for (const folder of new Set(onPath)) if (folder !== testsFolder) places.push([folder, ON_PYTHONPATH]);
  const whys: string[] = [];
  for (const [folder, words] of places) {
    const why = await shadowingIn(container, folder, artifactEntriesIn(folder, artifacts), words);
    if (why) whys.push(why);
  }
  return whys.length
    ? `${whys.join('; ')} (declare only the files the tests read, or keep them out of those folders)`
    : undefined;
}

const TESTS_FOLDER: Partial<ShadowingWords> = {
  left: 'the artifacts put',
  where: 'where the tests run',
  graders: 'tests',
};
const ON_PYTHONPATH: ShadowingWords = {
  left: 'the artifacts put',
  where: "on the verifier's PYTHONPATH",
  lookup: 'every python3 the tests start looks modules up there before its own',
  graders: 'tests',
};

/** The verifier's python3 judges which of `entries` (paths in `folder`) shadow a module of its own. */
async function shadowingIn(
  container: ManagedContainer,
  folder: string,
  entries: ReadonlyMap<string, string>,
  words: Partial<ShadowingWords>,
): Promise<string | undefined> {
  if (!entries.size) return undefined;
  const where = `${JSON.stringify(folder)}, ${words.where}`;
  // Root's reading, with nothing to walk: only the modules of `folder` are asked for.
  const res = await container.exec(
    ['sh', '-c', RUN_WITH_SYSTEM_PYTHON, TURN_END_CHECK_SCRIPT, ...turnEndCheckArgs([], [], folder)],
    { user: 'root', cwd: '/', timeoutMs: TURN_END_CHECK_TIMEOUT_MS },
  );
  if (res.exitCode === NO_PYTHON) {
    const modules = [...entries].filter(([, host]) => moduleLike(host)).map(([path]) => path);
    if (!modules.length) return undefined;
    return `the artifacts put ${listed(modules)} in ${where}, and the verifier has no python3 to say which of them a python3 the tests install would import in place of its own modules`;
  }
  let shadowing: ShadowingModule[];
  try {
    shadowing = turnEndCheckOf(res, [folder]).shadowing.filter((s) => entries.has(s.path));
  } catch (err) {
    return `the artifacts put ${listed([...entries.keys()])} in ${where}, and the verifier's python3 could not say which of them it would import in place of its own modules (${errorMessage(err)})`;
  }
  return shadowingWhy(shadowing, folder, words);
}
