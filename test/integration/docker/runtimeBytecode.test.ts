import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DockerProvider, RUNTIME_DIR, type DockerSubstrate } from '../../../client/src/engine/providers/docker';
import { BASE_IMAGE, assertNoContainersOfRollout, dockerReady, tempDir } from './support';

// Reports the interpreter's cache tag, the flags word of the server module's bytecode (1: unchecked
// hash, as the engine compiles it; an interpreter writes 0, timestamp-checked) and where the import
// took the module's code from (python -v names the bytecode file it loaded).
const PROBE = `
import os, subprocess, sys
tag = sys.implementation.cache_tag
pyc = os.path.join(${JSON.stringify(RUNTIME_DIR)}, 'hud', 'environment', '__pycache__', 'server.' + tag + '.pyc')
with open(pyc, 'rb') as f:
    flags = int.from_bytes(f.read(8)[4:8], 'little')
env = dict(os.environ, PYTHONDONTWRITEBYTECODE='1')
r = subprocess.run([sys.executable, '-v', '-c', 'import hud.environment.server'], env=env, capture_output=True, text=True)
loaded = "code object from '" + pyc + "'" in r.stderr
print(tag, flags, loaded, r.returncode)
`;

describe('Docker provider: the bundled runtime arrives compiled', () => {
  let envDir = '';
  before(async () => {
    await dockerReady();
    envDir = tempDir('bytecode-');
    writeFileSync(join(envDir, 'env.py'), 'from hud import Environment\nenv = Environment("compiled")\n');
  });
  after(() => rmSync(envDir, { recursive: true, force: true }));

  test("the server's imports load the bytecode shipped with the copy instead of compiling", async () => {
    const hostTag = execFileSync('python3', ['-c', 'import sys; print(sys.implementation.cache_tag)'], {
      encoding: 'utf8',
    }).trim();
    const provider = new DockerProvider();
    const rolloutIds: string[] = [];
    try {
      // Two containers of one job: the second gets the archive packed for the first.
      for (let i = 0; i < 2; i++) {
        const rolloutId = `test-${randomUUID()}`;
        rolloutIds.push(rolloutId);
        const logs: string[] = [];
        const s = (await provider.acquire(
          { envFile: join(envDir, 'env.py'), envDir, runtimeConfig: null, image: BASE_IMAGE },
          { rolloutId, phase: 'actor', log: (_, text) => logs.push(text), startupTimeoutMs: 120_000 },
        )) as DockerSubstrate;
        try {
          assert.ok(!logs.some((l) => /without bytecode/.test(l)), logs.join('\n'));
          const r = await s.execPython(['-c', PROBE]);
          assert.equal(r.exitCode, 0, r.stderr);
          // The base image's python is the host's minor version, so the host-compiled bytecode fits it.
          assert.equal(r.stdout.trim(), `${hostTag} 1 True 0`);
        } finally {
          await s.release();
        }
      }
    } finally {
      for (const id of rolloutIds) await assertNoContainersOfRollout(id);
    }
  });
});
