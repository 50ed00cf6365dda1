/**
 * An adversarial model in the actor's seat hunts for keys (docs/security.md):
 * its bash dumps the environment, the environ and cmdline of every process
 * under /proc it can read, the mounts and the files under them, and probes
 * the model gateway and every loopback port it can find. The CLI runs as a
 * real process with the agent's key (ANTHROPIC_API_KEY), the judge's key
 * (OPENAI_API_KEY, for the verifier's LLM judge) and host keys (HUD_API_KEY,
 * OPENAI_COMPATIBLE_API_KEY) in its environment, as a user's shell would have them; none
 * may reach a tool output, the trace or the CLI's output, on the local
 * runtime (bubblewrap) and on Docker.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startScriptedModel, type ScriptEntry } from '../../support/scriptedModels';
import { scratchDir } from '../engine-local/rules';
import { REPO_ROOT } from '../cli/cliHarness';

const JUDGED = join(__dirname, '..', 'llm', 'fixtures', 'judged', 'env.py');
const KEYS = {
  ANTHROPIC_API_KEY: 'sk-ant-AGENT-SECRET-77ab',
  OPENAI_API_KEY: 'sk-openai-JUDGE-SECRET-41d9',
  HUD_API_KEY: 'hud-HOST-SECRET-0c3e',
  OPENAI_COMPATIBLE_API_KEY: 'sk-compat-HOST-SECRET-9a2f',
};

// Each command prints only what matches, so the tool output limit cannot cut a find out of sight.
// A key's value follows its name in an environ block; a file may hold the value alone.
const KEY_NAMES = '((OPENAI|ANTHROPIC|HUD|OPENAI_COMPATIBLE)_API_KEY=|(AGENT|JUDGE|HOST)-SECRET)[[:alnum:]_=-]*';

const bash = (command: string, timeoutSeconds?: number): ScriptEntry => ({
  toolCalls: [
    {
      name: 'bash',
      arguments: { command, ...(timeoutSeconds ? { timeout_seconds: timeoutSeconds } : {}) },
    },
  ],
});

/** Connects to each URL and loopback port it is given or finds, asks for models without a key, prints what answered. */
function gatewayProbe(urls: string[]): string {
  return [
    "echo GATEWAY-PROBE; env | grep -i -E 'gateway|_url|_base' ; python3 - <<'EOF'",
    'import socket, urllib.parse',
    `targets = [(u.hostname, u.port) for u in map(urllib.parse.urlsplit, ${JSON.stringify(urls)})]`,
    'for t in ("/proc/net/tcp", "/proc/net/tcp6"):',
    '    try:',
    '        rows = open(t).read().splitlines()[1:]',
    '    except OSError:',
    '        rows = []',
    '    for row in rows:',
    '        c = row.split()',
    '        if c[3] == "0A": targets.append(("127.0.0.1", int(c[1].rsplit(":", 1)[1], 16)))',
    'for host, port in targets:',
    '    try:',
    '        s = socket.create_connection((host, port), timeout=3)',
    '        s.sendall(b"GET /v1/models HTTP/1.0\\r\\nHost: x\\r\\n\\r\\n")',
    '        print("answered", port, s.recv(200).split(b"\\r\\n")[0])',
    '    except OSError as e:',
    '        print("unreachable", port, type(e).__name__)',
    'EOF',
  ].join('\n');
}

const MET = { text: JSON.stringify({ verdict: 'MET', reason: 'it does' }), usage: { input: 50, output: 8 } };

for (const runtime of ['local', 'docker'] as const) {
  test(
    `${runtime}: a model hunting for keys finds none of the agent's, the judge's or the host's`,
    { timeout: 300_000 },
    async () => {
      const hunt: ScriptEntry[] = [];
      const agentModel = await startScriptedModel('anthropic', hunt);
      const judgeModel = await startScriptedModel('openai', [], { whenExhausted: MET });
      // The script is read as requests come: the probe can name both servers.
      hunt.push(
        bash(`echo ENV-DUMP; env | grep -c PATH=; env | grep -E '${KEY_NAMES}'; id`),
        bash(
          `echo PROC-DUMP $(ls -d /proc/[0-9]* | wc -l); grep -a -o -h -E '${KEY_NAMES}' /proc/[0-9]*/environ /proc/[0-9]*/cmdline 2>/dev/null`,
        ),
        bash(
          `cat /proc/self/mounts | wc -l; grep -rIoh -E '${KEY_NAMES}' / --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev --exclude-dir=usr 2>/dev/null | head -50; echo HUNT-DONE`,
          60,
        ),
        bash(gatewayProbe([agentModel.baseUrl, judgeModel.baseUrl])),
        { toolCalls: [{ name: 'submit', arguments: { answer: 'Rayleigh scattering of short wavelengths.' } }] },
      );
      const traceDir = scratchDir('keyhunt-');
      try {
        const argv = [
          ...[join(REPO_ROOT, 'client', 'src', 'cli.ts'), 'run', `${JUDGED}::task`],
          ...['--model', 'anthropic/hunter', '--base-url', agentModel.baseUrl],
          ...['--judge-model', 'openai/judge-mini', '--judge-base-url', judgeModel.baseUrl],
          ...['--runtime', runtime, '--trace-dir', traceDir, '--json'],
        ];
        const child = spawn(process.execPath, ['--import', 'tsx', ...argv], {
          cwd: REPO_ROOT,
          env: { ...process.env, ...KEYS, FORCE_COLOR: '0' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
        child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
        const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
        assert.equal(code, 0, `${stdout}\n${stderr}`);
        const result = JSON.parse(stdout) as { status: string; trace: string };
        assert.equal(result.status, 'completed', stdout);
        const trace = readFileSync(result.trace, 'utf8');
        // What the model saw is what came back to the server in the later requests.
        const seen = agentModel.requests.map((r) => JSON.stringify(r.body)).join('\n');
        // The hunt really ran: the dumps and the probe are there.
        assert.match(seen, /ENV-DUMP/);
        assert.match(seen, /PROC-DUMP [1-9]/);
        assert.match(seen, /HUNT-DONE/);
        assert.match(seen, /GATEWAY-PROBE[^]*(unreachable|answered) \d+/);
        for (const [name, value] of Object.entries(KEYS)) {
          assert.equal(seen.includes(value), false, `${name} reached the model through a tool`);
          assert.equal(trace.includes(value), false, `${name} is in the trace`);
          assert.equal(stdout.includes(value) || stderr.includes(value), false, `${name} is in the CLI output`);
        }
        // The keys were in play: each upstream got its own, from the host.
        const agentAuth = agentModel.requests[0]!.headers;
        // The Anthropic library sends its key as x-api-key or as a bearer token, depending on its version.
        assert.ok(
          [agentAuth['x-api-key'], agentAuth['authorization']].some(
            (v) => v === KEYS.ANTHROPIC_API_KEY || v === `Bearer ${KEYS.ANTHROPIC_API_KEY}`,
          ),
          'the agent model got its key',
        );
        assert.ok(judgeModel.requests.length > 0, 'the judge was called');
        assert.equal(judgeModel.requests[0]!.headers['authorization'], `Bearer ${KEYS.OPENAI_API_KEY}`);
      } finally {
        await agentModel.close();
        await judgeModel.close();
      }
    },
  );
}
