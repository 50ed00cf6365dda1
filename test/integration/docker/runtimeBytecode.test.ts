import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DockerProvider, RUNTIME_DIR, type DockerSubstrate } from '../../../client/src/engine/providers/docker';
import { BASE_IMAGE, assertNoContainersOfRollout, dockerReady, tempDir } from './support';

// What a fresh interpreter in the container gets: whether the table for its version is there and
// served, and which loader the server module's code came from.
const PROBE = `
import sys
from hud_studio.bytecode import install
print(sys.implementation.cache_tag, install())
import hud.environment.server as server
print(type(server.__spec__.loader).__name__, server.__file__)
`;

// Bytecode files of the runtime: the interpreter writes them when it compiles a module from its source.
const WRITTEN = `find ${RUNTIME_DIR} -name "*.pyc"`;

describe('Docker provider: the bundled runtime arrives compiled', () => {
  let envDir = '';
  before(async () => {
    await dockerReady();
    envDir = tempDir('bytecode-');
    writeFileSync(join(envDir, 'env.py'), 'from hud import Environment\nenv = Environment("compiled")\n');
  });
  after(() => rmSync(envDir, { recursive: true, force: true }));

  for (const mounted of [true, false]) {
    test(`the server's imports take the code compiled on the host instead of compiling the runtime (${mounted ? 'mounted read-only' : 'copied'})`, async () => {
      const hostTag = execFileSync('python3', ['-c', 'import sys; print(sys.implementation.cache_tag)'], {
        encoding: 'utf8',
      }).trim();
      const provider = new DockerProvider({ mountRuntime: mounted });
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
            assert.equal(
              logs.some((l) => /is mounted read-only/.test(l)),
              mounted,
              logs.join('\n'),
            );
            // The pre-started interpreter imported the SDK and is serving: it compiled nothing of the runtime.
            await s.serve({ envName: 'compiled', log: () => undefined });
            const written = await s.exec(['sh', '-c', WRITTEN]);
            // Only the finder's own two modules, imported before it can serve anything (and, on the read-only
            // mount, not even their bytecode could be written).
            assert.deepEqual(
              written.stdout.trim().split('\n').filter(Boolean).sort(),
              mounted
                ? []
                : [
                    `${RUNTIME_DIR}/hud_studio/__pycache__/__init__.${hostTag}.pyc`,
                    `${RUNTIME_DIR}/hud_studio/__pycache__/bytecode.${hostTag}.pyc`,
                  ],
              'no other module of the runtime was compiled in the container',
            );
            const r = await s.execPython(['-c', PROBE], { env: { PYTHONDONTWRITEBYTECODE: '1' } });
            assert.equal(r.exitCode, 0, r.stderr);
            // The base image's python is the host's minor version, so the host-compiled table fits it.
            assert.equal(r.stdout, `${hostTag} True\n_PrecompiledLoader ${RUNTIME_DIR}/hud/environment/server.py\n`);
          } finally {
            await s.release();
          }
        }
      } finally {
        for (const id of rolloutIds) await assertNoContainersOfRollout(id);
      }
    });
  }
});
