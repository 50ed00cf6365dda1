/**
 * The image's own HUD SDK serves behind the same loopback peer check as the
 * bundled server (docs/security.md), on a real Docker engine with an image
 * that really contains the SDK. The agent shares the container's loopback
 * with that server: it connects to every listening port, speaks the control
 * channel (hello, tasks.list, a lone tasks.grade that would adopt a parked
 * task, a forged grade frame), and answers with what came back. It must get
 * nothing, and score 0.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readTrace } from '../../../client/src/engine/trace/store';
import { dockerReady } from '../docker/support';
import { peerSdkImage } from '../../conformance/peerImage';
import { completedRollout } from './rollout';

const SELF_GRADED = join(__dirname, 'fixtures', 'self_graded', 'env.py');

let image: string;
before(async () => {
  await dockerReady();
  image = peerSdkImage();
});

const TALK_TO_SERVER = [
  "python3 - <<'EOF'",
  'import json, socket',
  'ports = set()',
  'for t in ("/proc/net/tcp", "/proc/net/tcp6"):',
  '    for row in open(t).read().splitlines()[1:]:',
  '        c = row.split()',
  '        if c[3] == "0A": ports.add(int(c[1].rsplit(":", 1)[1], 16))',
  'print("listening", sorted(ports))',
  'frames = [',
  '    {"jsonrpc": "2.0", "id": 1, "method": "hello", "params": {}},',
  '    {"jsonrpc": "2.0", "id": 2, "method": "tasks.list"},',
  '    {"jsonrpc": "2.0", "id": 3, "method": "tasks.grade", "params": {"answer": "hunter2"}},',
  '    {"jsonrpc": "2.0", "id": 4, "result": {"score": 1.0}},',
  ']',
  'for port in sorted(ports):',
  '    try:',
  '        c = socket.create_connection(("127.0.0.1", port), timeout=5)',
  '        c.sendall("".join(json.dumps(f) + "\\n" for f in frames).encode())',
  '        print("reply", port, repr(c.recv(65536)))',
  '    except OSError as e:',
  '        print("reply", port, "error", e)',
  'EOF',
].join('\n');

/** A completed rollout of the self-graded task served by the image's SDK, with `command` in the agent's seat. */
async function run(command: string) {
  const r = await completedRollout(`${SELF_GRADED}::task`, command, {
    runtime: 'docker',
    image,
    imageSdk: true,
    timeoutS: 180,
    traces: 'image-sdk-attack',
  });
  return { ...r, trace: readTrace(r.trace) };
}

function serverLog(trace: ReturnType<typeof readTrace>): string {
  return trace.phases.flatMap((p) => p.logs.filter((l) => l.stream === 'server').map((l) => l.text)).join('\n');
}

test("the image's SDK serves behind the peer check, and the engine's relay still gets through", async () => {
  const r = await run('echo hunter2');
  assert.equal(r.reward, 1, 'the right answer scores through the relay');
  assert.equal(r.trace.phases[0]?.substrate?.sdk?.source, 'image');
  assert.match(serverLog(r.trace), /peer check on the control channel/);
});

test("the agent connects to the image SDK server's control port and forges frames: no reply, reward 0", async () => {
  const r = await run(`${TALK_TO_SERVER}\necho wrong`);
  assert.equal(r.reward, 0);
  assert.equal(r.trace.phases[0]?.substrate?.sdk?.source, 'image');
  const seen = String(r.trace.answer);
  assert.match(seen, /^listening \[\d+/m, `the agent found the server's port: ${seen}`);
  assert.match(seen, /^reply \d+ /m, seen);
  assert.doesNotMatch(seen, /jsonrpc/, `the agent got an answer on the control channel: ${seen}`);
});
