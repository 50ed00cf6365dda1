/**
 * The agent's seat in a Docker actor container (docs/security.md), probed
 * from inside: what an unprivileged agent can and cannot reach while the
 * environment's server runs beside it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AGENT_UIDS, DockerProvider } from '../../../client/src/engine/providers/docker';
import { DockerAgentSeat } from '../../../client/src/engine/providers/dockerAgentSeat';
import type { AgentSeat, Substrate } from '../../../client/src/engine/providers/provider';
import { rpc } from '../docker/jsonLines';
import { dockerReady, tempDir } from '../docker/support';

const SELF_GRADED = join(__dirname, 'fixtures', 'self_graded');

/**
 * Pids (as root sees them) of the server and of the relay, if there is one:
 * the first control channel rides on the pre-started server's own stdin and
 * stdout, with no relay (docs/hud-protocol.md).
 */
async function serverAndRelay(s: Substrate): Promise<{ server: string; relay: string | undefined }> {
  const ps = await s.exec(
    [
      'sh',
      '-c',
      'for d in /proc/[0-9]*; do echo "${d#/proc/} $(tr "\\0" " " < $d/cmdline | head -c 300 | tr "\\n" " ")"; done',
    ],
    { user: '0' },
  );
  const lines = ps.stdout.split('\n');
  const server = lines.find((l) => /hud_studio\.prestart|unpack|hud\.environment\.server/.test(l))?.split(' ')[0];
  const relay = lines.find((l) => /python3 -I -S -c\s+import os, socket/.test(l))?.split(' ')[0];
  assert.ok(server, ps.stdout);
  return { server, relay };
}

describe('the agent seat in a Docker actor container', () => {
  let s: Substrate;
  let seat: AgentSeat;
  /** The agent's user in this container. */
  let agentUid: number;
  let pids: { server: string; relay: string | undefined };
  const rolloutId = `test-${randomUUID()}`;

  before(async () => {
    await dockerReady();
    s = await new DockerProvider().acquire(
      { envFile: join(SELF_GRADED, 'env.py'), envDir: SELF_GRADED, runtimeConfig: null },
      { rolloutId, phase: 'actor', log: () => undefined, startupTimeoutMs: 120_000 },
    );
    await s.serve({ envName: 'workspace', env: { SERVER_TOKEN: 'only-for-the-server' }, log: () => undefined });
    const ch = rpc(await s.openChannel());
    await ch.call('hello');
    // Something the environment prepared for the agent before it ran, as root.
    await s.exec(['sh', '-c', 'echo prepared > /workspace/prepared.txt'], { user: '0' });
    pids = await serverAndRelay(s);
    seat = s.agentSeat!();
    assert.ok(seat instanceof DockerAgentSeat);
    agentUid = seat.agentUid;
  });
  after(async () => {
    await s?.release();
  });

  const asAgent = (script: string) => seat.exec(['sh', '-c', script]);

  test('runs as its own user in the workspace root, which it owns with what the environment put there', async () => {
    const r = await asAgent('id -u; pwd; stat -c %u /workspace; echo more >> prepared.txt && cat prepared.txt');
    assert.equal(r.stdout, `${agentUid}\n/workspace\n${agentUid}\nprepared\nmore\n`, r.stderr);
    assert.ok(agentUid >= AGENT_UIDS.first && agentUid < AGENT_UIDS.first + AGENT_UIDS.count, `${agentUid}`);
    assert.equal(seat.privileged, false);
  });

  test("cannot read the environment's folder", async () => {
    const r = await asAgent('cat /opt/hud-studio/env/env.py; ls /opt/hud-studio/env');
    assert.notEqual(r.exitCode, 0);
    assert.doesNotMatch(r.stdout, /hunter2|env\.py/);
  });

  test('cannot signal, trace or read the server and relay, nor write into their input or output', async () => {
    // The server's stdin and stdout carry the control channel; a relay's (when there is one) would too.
    const pipes = [pids.server, ...(pids.relay ? [pids.relay] : [])].flatMap((pid) =>
      [0, 1, 2].map((fd) => `${pid}/fd/${fd}`),
    );
    const r = await asAgent(
      [
        `kill -STOP ${pids.server} && echo signalled`,
        `cat /proc/${pids.server}/environ && echo read-environ`,
        `cat /proc/${pids.server}/maps > /dev/null && echo read-maps`,
        ...pipes.map((p) => `printf x > /proc/${p} && echo wrote-relay`),
        'true',
      ].join('\n'),
    );
    assert.doesNotMatch(
      r.stdout,
      /signalled|read-environ|read-maps|wrote-relay|only-for-the-server/,
      r.stdout + r.stderr,
    );
    const state = await s.exec(['sh', '-c', `grep State /proc/${pids.server}/status`], { user: '0' });
    assert.doesNotMatch(state.stdout, /stopped/);
  });

  test("cannot take over the server's port, nor talk to the control channel", async () => {
    const probe = join(tempDir('seat'), 'probe.py');
    writeFileSync(
      probe,
      [
        'import socket',
        "# Every listening socket, at the address it listens on (Docker's DNS listens on 127.0.0.11 on a",
        "# network of one's own): the kernel's table writes addresses as little-endian 32-bit words.",
        'listening = set()',
        'for t, family in (("/proc/net/tcp", socket.AF_INET), ("/proc/net/tcp6", socket.AF_INET6)):',
        '    for row in open(t).read().splitlines()[1:]:',
        '        c = row.split()',
        '        if c[3] != "0A": continue',
        '        addr, port = c[1].rsplit(":", 1)',
        '        raw = b"".join(bytes.fromhex(addr[i:i + 8])[::-1] for i in range(0, len(addr), 8))',
        '        listening.add((family, socket.inet_ntop(family, raw), int(port, 16)))',
        'for family, ip, port in sorted(listening):',
        '    b = socket.socket(family)',
        '    b.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)',
        '    b.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)',
        '    try:',
        '        b.bind((ip, port)); b.listen(); print("bound", ip, port)',
        '    except OSError as e:',
        '        print("bind refused", ip, port, e.errno)',
        '    near = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(ip, ip)',
        '    c = socket.create_connection((near, port), timeout=5)',
        '    c.sendall(b\'{"jsonrpc":"2.0","id":1,"method":"hello","params":{}}\\n\')',
        '    try:',
        '        print("reply", port, repr(c.recv(4096)))',
        '    except OSError as e:',
        '        print("reply", port, "error", e.errno)',
      ].join('\n'),
    );
    await seat.copyIn(probe, '.');
    const r = await asAgent('python3 probe.py');
    assert.equal(r.exitCode, 0, r.stderr);
    assert.match(r.stdout, /bind refused/);
    assert.doesNotMatch(r.stdout, /^bound/m);
    assert.doesNotMatch(r.stdout, /jsonrpc/, `the agent got an answer on the control channel: ${r.stdout}`);
    // The engine's own connections still work.
    const ch = rpc(await s.openChannel());
    assert.equal(((await ch.call('hello'))['result'] as { env: { name: string } }).env.name, 'workspace');
    ch.close();
  });

  // cron and at look their user up before they take a job (`crontab: your UID isn't in the passwd file`): an
  // agent with a name could leave a job that a scheduler of the image starts after end() swept its processes.
  test('has no name in the passwd or group files, which cron and at ask for before they take a job', async () => {
    const r = await asAgent(
      'getent passwd "$(id -u)"; echo "passwd $?"; getent group "$(id -g)"; echo "group $?"; ' +
        'python3 -c "import os, pwd; pwd.getpwuid(os.getuid())" 2>/dev/null; echo "getpwuid $?"',
    );
    assert.equal(r.stdout, 'passwd 2\ngroup 2\ngetpwuid 1\n', r.stderr);
  });

  // A copy into the workspace (an agent's harness hands it files) through a link the agent left there: the copy
  // used to be unpacked by root through the link, and the folder it made given to the agent, wherever it was.
  test("a copy into the workspace goes through the agent's links with the agent's rights only", async () => {
    await s.exec(['sh', '-c', 'mkdir -p /srv/grader && chmod 700 /srv/grader && echo key > /srv/grader/key'], {
      user: '0',
    });
    const made = await asAgent('ln -s /srv/grader /workspace/inbox && ln -s /srv/grader/notes /workspace/notes');
    assert.equal(made.exitCode, 0, made.stderr);
    const files = tempDir('copy');
    writeFileSync(join(files, 'data.txt'), 'from the harness\n');
    await assert.rejects(seat.copyIn(files, 'inbox/sub'), /Permission denied/);
    await assert.rejects(seat.copyIn(join(files, 'data.txt'), 'notes'), /Permission denied/);
    const grader = await s.exec(['sh', '-c', 'ls -A /srv/grader; stat -c %u /srv/grader'], { user: '0' });
    assert.equal(grader.stdout, 'key\n0\n', 'nothing was written or given away behind the link');
    // Where the agent may write, the copy lands as before, the agent's own.
    await seat.copyIn(files, 'plain/sub');
    await seat.copyIn(join(files, 'data.txt'), '.');
    const landed = await asAgent('cat plain/sub/data.txt data.txt; stat -c %u plain plain/sub plain/sub/data.txt');
    assert.equal(
      landed.stdout,
      `from the harness\nfrom the harness\n${agentUid}\n${agentUid}\n${agentUid}\n`,
      landed.stderr,
    );
    const staged = await s.exec(['sh', '-c', 'ls -A /tmp | grep -c hud-studio-copy; true'], { user: '0' });
    assert.equal(staged.stdout.trim(), '0', 'no staging folder is left');
  });

  test('end() kills everything the agent started, however it detached', async () => {
    await asAgent(
      'setsid sh -c "sleep 1000" </dev/null >/dev/null 2>&1 & nohup sleep 1000 </dev/null >/dev/null 2>&1 & echo started',
    );
    const before = await s.exec(['sh', '-c', `grep -l "^Uid:\\s*${agentUid}" /proc/[0-9]*/status | wc -l`], {
      user: '0',
    });
    assert.ok(Number(before.stdout.trim()) >= 2, before.stdout);
    await seat.end();
    const left = await s.exec(
      [
        'sh',
        '-c',
        `for f in /proc/[0-9]*/status; do grep -q "^Uid:\\s*${agentUid}" $f 2>/dev/null && ! grep -q "^State:\\s*Z" $f && echo $f; done; true`,
      ],
      { user: '0' },
    );
    assert.equal(left.stdout, '', 'no process of the agent is left');
    const state = await s.exec(['sh', '-c', `grep State /proc/${pids.server}/status`], { user: '0' });
    assert.match(state.stdout, /sleeping|running/i, 'the server lives on');
  });
});
