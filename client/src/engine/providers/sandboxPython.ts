/**
 * The interpreter a sandboxed local server runs (localSandbox.ts). `python3`
 * on the host's PATH may be a launcher the sandbox cannot run (a pyenv shim
 * reads its own tree; a wrapper script sets PYTHONPATH), so the engine asks
 * it once, outside the sandbox, with the substrate's scrubbed environment,
 * what it really runs: the interpreter's file, its prefixes, and the module
 * folders it searches (after importing `hud` when the local SDK serves, so
 * that whatever its site set-up adds is included). The sandbox then runs
 * that interpreter directly (by its file, not PATH), sees those folders read-only, and gets the
 * folders outside the prefixes as PYTHONPATH.
 */
import { dirname } from 'node:path';
import { realpathSync } from 'node:fs';
import { HudStudioError } from '../errors';
import { execInGroup } from './processGroup';
import { isWithin } from './localSandbox';

export interface SandboxPython {
  /** The interpreter's own file, run without PATH lookup. */
  executable: string;
  /** Folders to show read-only: the interpreter's prefixes and every module folder. */
  readable: string[];
  /** Module folders outside the prefixes, which the interpreter would not find by itself. */
  pythonPath: string[];
}

const PROBE = [
  'import json, os, sys',
  'if sys.argv[1] == "image":',
  '    import hud',
  'prefixes = sorted({sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix})',
  'path = [p for p in sys.path if os.path.isabs(p) and os.path.isdir(p)]',
  'print(json.dumps({"executable": sys.executable, "prefixes": prefixes, "path": path}))',
].join('\n');

const probes = new Map<string, Promise<SandboxPython>>();

/** What `python3` in `env` runs, probed once per PATH and SDK source (the answer does not change). */
export function sandboxPython(
  env: Record<string, string>,
  cwd: string,
  sdk: 'bundled' | 'image',
): Promise<SandboxPython> {
  const key = `${sdk}:${env['PATH'] ?? ''}`;
  let found = probes.get(key);
  if (!found) {
    found = probe(env, cwd, sdk);
    probes.set(key, found);
    found.catch(() => probes.delete(key));
  }
  return found;
}

async function probe(env: Record<string, string>, cwd: string, sdk: 'bundled' | 'image'): Promise<SandboxPython> {
  const r = await execInGroup(['python3', '-c', PROBE, sdk], { cwd, env, timeoutMs: 60_000 });
  let parsed: { executable: string; prefixes: string[]; path: string[] };
  try {
    parsed = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '') as typeof parsed;
    if (typeof parsed.executable !== 'string' || !Array.isArray(parsed.prefixes) || !Array.isArray(parsed.path))
      throw new Error('unexpected answer');
  } catch {
    throw new HudStudioError('provider', `cannot tell which python3 the local server runs: ${r.stderr.trim()}`, {
      hint: 'the local runtime needs a working python3 on PATH',
    });
  }
  // Not resolved: a virtualenv's interpreter is a link, and it finds its environment from the link's place.
  const executable = parsed.executable;
  const readable = new Set<string>([dirname(executable), dirname(realpathSync(executable))]);
  for (const p of [...parsed.prefixes, ...parsed.path]) readable.add(realpathSync(p));
  readable.delete('/');
  const prefixes = parsed.prefixes.map((p) => realpathSync(p));
  const pythonPath = parsed.path.map((p) => realpathSync(p)).filter((p) => !prefixes.some((pre) => isWithin(p, pre)));
  return { executable, readable: [...readable], pythonPath };
}
