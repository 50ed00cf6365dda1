/**
 * The host's abstract Unix sockets, from the local runtime's sandboxes
 * (docs/security.md). Such a socket has a name in the network namespace,
 * not a file, so no bind hides it; session buses and X servers listen on
 * them and trust a client by its user id, which the sandbox shares. Here a
 * host "service" on an abstract name hands the golden word to whoever
 * connects: a server-side tool (the environment runs the agent's answer as a
 * command) and an agent's own command each try it. Missing bubblewrap is a
 * failure.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { bubblewrap } from '../../../client/src/engine/providers/localSandbox';
import { readTrace } from '../../../client/src/engine/trace/store';
import { completedRollout } from './rollout';

const TOOL = join(__dirname, 'fixtures', 'server_tool', 'env.py');
const SELF_GRADED = join(__dirname, 'fixtures', 'self_graded', 'env.py');
const GOLDEN = readFileSync(join(dirname(TOOL), 'verifier-only', 'expected.txt'), 'utf8').trim();
const NAME = `hs-redteam-${randomUUID()}`;

/** Connects to the abstract socket NAME and prints what it says, or why it could not. */
const CONNECT = `python3 -c 'import socket,sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(b"\\0" + sys.argv[1].encode()); print(s.recv(200).decode())
except OSError as e:
    print("refused:", e.strerror)' ${NAME}`;

let service: ChildProcess;

before(async () => {
  assert.ok(bubblewrap(), 'the local runtime needs bubblewrap for these tests (apt-get install -y bubblewrap)');
  // The service answers each connection with a secret word (GOLDEN for the server tool, "hunter2" for self-graded).
  const serve = `import socket, sys
srv = socket.socket(socket.AF_UNIX); srv.bind(b"\\0" + sys.argv[1].encode()); srv.listen(8)
print("ready", flush=True)
while True:
    c, _ = srv.accept(); c.sendall(sys.argv[2].encode()); c.close()`;
  service = spawn('python3', ['-c', serve, NAME, `${GOLDEN} hunter2`], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    service.stdout!.once('data', () => resolve());
    service.once('exit', (code) => reject(new Error(`the service exited (${code})`)));
  });
  // The attack can succeed: on the host, outside any sandbox, the service answers.
  const direct = spawnSync('sh', ['-c', CONNECT], { encoding: 'utf8' });
  assert.equal(direct.stdout.trim(), `${GOLDEN} hunter2`, direct.stderr);
});

after(() => service?.kill());

async function run(ref: string, flag: '--answer' | '--command', value: string) {
  const json = await completedRollout(ref, value, {
    runtime: 'local',
    answer: flag === '--answer',
    traces: 'host-sockets',
  });
  return { ...json, text: readFileSync(json.trace, 'utf8'), trace: readTrace(json.trace) };
}

test("a server-side tool cannot reach the host's abstract Unix sockets", async () => {
  const r = await run(`${TOOL}::task`, '--answer', CONNECT);
  const output = String((r.trace.actorResult as { answer?: unknown } | undefined)?.answer);
  assert.match(output, /^refused: /, 'the tool ran and the connection was refused');
  assert.equal(r.reward, 0);
  assert.equal(r.text.includes(GOLDEN), false, "the host service's word is not in the trace");
});

test("an agent's command cannot reach them either (it has no network namespace of the host's)", async () => {
  const r = await run(`${SELF_GRADED}::task`, '--command', CONNECT);
  assert.match(String(r.trace.answer), /^refused: /);
  assert.equal(r.reward, 0);
});
