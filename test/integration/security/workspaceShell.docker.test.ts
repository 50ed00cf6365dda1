/**
 * An environment's workspace shell (env.workspace) in a Docker actor
 * container (docs/security.md, docs/sdk-compatibility.md): it serves the
 * agent's own folder, and it runs commands as the server's user, so the
 * agent, which shares the container's loopback, must not reach it; only the
 * server's tunnels may.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { DockerProvider, WORKSPACE_DIR } from '../../../client/src/engine/providers/docker';
import type { Substrate } from '../../../client/src/engine/providers/provider';
import { LineSplitter } from '../../../client/src/engine/output/lineSplitter';
import { dockerReady, tempDir } from '../docker/support';

const FIXTURE = join(__dirname, 'fixtures', 'workspace_shell');

/** One JSON line written, the next JSON line read. */
function lineClient(stream: Duplex): (message: unknown) => Promise<Record<string, unknown>> {
  const waiting: ((line: string) => void)[] = [];
  const lines = new LineSplitter((line) => waiting.shift()?.(line));
  stream.on('data', (chunk: Buffer) => lines.push(chunk));
  return (message) =>
    new Promise((resolve) => {
      waiting.push((line) => resolve(JSON.parse(line) as Record<string, unknown>));
      stream.write(`${JSON.stringify(message)}\n`);
    });
}

describe("an environment's workspace shell in a Docker actor container", () => {
  let s: Substrate;
  let shellPort: number;

  before(async () => {
    await dockerReady();
    s = await new DockerProvider().acquire(
      { envFile: join(FIXTURE, 'env.py'), envDir: FIXTURE, runtimeConfig: null },
      { rolloutId: `test-${randomUUID()}`, phase: 'actor', log: () => undefined, startupTimeoutMs: 120_000 },
    );
    await s.serve({ envName: 'workspace', log: () => undefined });
  });
  after(async () => {
    await s?.release();
  });

  test("serves the agent's workspace, whatever root env.py names, through the server's tunnel", async () => {
    const control = await s.openChannel();
    const tunnel = await s.openChannel();
    try {
      const hello = (await lineClient(control)({ jsonrpc: '2.0', id: 1, method: 'hello', params: {} }))['result'] as {
        bindings: { name: string; url: string; params: { cwd: string } }[];
      };
      const shell = hello.bindings.find((b) => b.name === 'shell');
      assert.equal(shell?.params.cwd, WORKSPACE_DIR);
      shellPort = Number(/:(\d+)$/.exec(shell.url)?.[1]);
      assert.ok(shellPort > 0, shell.url);
      // A tunnel is a connection of its own, opened by its first frame.
      const send = lineClient(tunnel);
      const opened = await send({ jsonrpc: '2.0', id: 2, method: 'tunnel.open', params: { capability: 'shell' } });
      assert.ok(opened['result'], JSON.stringify(opened));
      const reply = await send({ id: 3, command: 'pwd' });
      assert.equal(reply['stdout'], `${WORKSPACE_DIR}\n`);
    } finally {
      control.destroy();
      tunnel.destroy();
    }
  });

  test('the agent cannot connect to the shell directly and run commands as the server', async () => {
    assert.ok(shellPort > 0, 'the first test found the port');
    const probe = join(tempDir('ws-shell'), 'probe.py');
    writeFileSync(
      probe,
      [
        'import socket, sys',
        `c = socket.create_connection(("127.0.0.1", ${shellPort}), timeout=10)`,
        'c.sendall(b\'{"id": 1, "command": "id -u"}\\n\')',
        'try:',
        '    print("reply", repr(c.recv(4096)))',
        'except OSError as e:',
        '    print("error", e.errno)',
      ].join('\n'),
    );
    const seat = s.agentSeat!();
    await seat.copyIn(probe, '.');
    const r = await seat.exec(['python3', 'probe.py']);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /exit_code/, `the agent ran a command through the workspace shell: ${r.stdout}`);
    assert.match(r.stdout, /^(reply b''|error \d+)/m, r.stdout);
  });
});
