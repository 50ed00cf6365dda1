import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentWritableFolders, enginePath, imageEnvOf } from '../../../client/src/engine/docker/enginePath';

test("the engine's PATH drops the workspace, the world-writable folders and relative entries", () => {
  assert.equal(
    enginePath('/workspace/.venv/bin:/usr/local/bin:/tmp/bin:/workspace:.:bin::/var/tmp/x:/dev/shm:/usr/bin/'),
    '/usr/local/bin:/usr/bin',
  );
  // A folder whose name only starts like the workspace's stays.
  assert.equal(enginePath('/workspaces/tools:/tmpfs/bin'), '/workspaces/tools:/tmpfs/bin');
  // Folders are compared once normalised: `..` cannot dress the workspace up as a system folder.
  assert.equal(enginePath('/usr/../workspace/bin:/tmp/../usr/bin:/usr//bin/'), '/usr/bin:/usr/bin');
});

test('the folders of a PATH in reach of the agent: the workspace and the shared temporary folders, normalised, and relative entries', () => {
  assert.deepEqual(
    agentWritableFolders(['/workspace/.venv/bin/', '/usr/../tmp/x', '/tmp/../usr/bin', 'bin', '', '/opt']),
    ['/workspace/.venv/bin', '/tmp/x', 'bin', ''],
  );
});

test("an image's PATH is read from its environment; none means Docker's default applies", () => {
  assert.equal(imageEnvOf(['LANG=C', 'PATH=/opt/conda/bin:/usr/bin']), '/opt/conda/bin:/usr/bin');
  assert.equal(imageEnvOf(['LANG=C']), undefined);
  assert.equal(imageEnvOf(undefined), undefined);
  assert.equal(imageEnvOf(['PATHS=x', 'PYTHONPATH=/app/lib'], 'PYTHONPATH'), '/app/lib');
});
