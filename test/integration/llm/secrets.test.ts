/**
 * An adversarial model in the actor's seat hunts for keys: its bash dumps the
 * environment, the environ and cmdline of every process under /proc it can read, the mounts and
 * the files under them. The CLI runs as a real process with all three model
 * keys in its environment (as a user's shell would have them); none of them
 * may reach a tool output, the trace or the CLI's output (Docker and local).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startScriptedModel, type ScriptEntry } from '../../support/scriptedModels';
import { scratchDir } from '../engine-local/rules';
import { FIX_FILE } from './llmRollout';

const REPO_ROOT = join(__dirname, '..', '..', '..');
const KEYS = {
  OPENAI_API_KEY: 'sk-openai-HOST-SECRET-41d9',
  ANTHROPIC_API_KEY: 'sk-ant-HOST-SECRET-77ab',
  HUD_API_KEY: 'hud-HOST-SECRET-0c3e',
};

// Each command prints only what matches, so the tool output limit cannot cut a find out of sight.
// A key's value follows its name in an environ block; a file may hold the value alone.
const KEY_NAMES = '((OPENAI|ANTHROPIC|HUD)_API_KEY=|HOST-SECRET)[[:alnum:]_=-]*';
const HUNT: ScriptEntry[] = [
  {
    toolCalls: [
      { name: 'bash', arguments: { command: `echo ENV-DUMP; env | grep -c PATH=; env | grep -E '${KEY_NAMES}'; id` } },
    ],
  },
  {
    toolCalls: [
      {
        name: 'bash',
        arguments: {
          command: `echo PROC-DUMP $(ls -d /proc/[0-9]* | wc -l); grep -a -o -h -E '${KEY_NAMES}' /proc/[0-9]*/environ /proc/[0-9]*/cmdline 2>/dev/null`,
        },
      },
    ],
  },
  {
    toolCalls: [
      {
        name: 'bash',
        arguments: {
          command: `cat /proc/self/mounts | wc -l; grep -rIoh -E '${KEY_NAMES}' / --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev --exclude-dir=usr 2>/dev/null | head -50; echo HUNT-DONE`,
          timeout_seconds: 60,
        },
      },
    ],
  },
  { toolCalls: [{ name: 'submit', arguments: { answer: 'nothing found' } }] },
];

for (const runtime of ['local', 'docker'] as const) {
  const opts = { timeout: 300_000 };
  test(`${runtime}: a model hunting for keys finds none of the agent's, the judge's or the host's`, opts, async () => {
    const server = await startScriptedModel('openai', HUNT);
    const traceDir = scratchDir('secrets-');
    try {
      const argv = [
        join(REPO_ROOT, 'client', 'src', 'cli.ts'),
        'run',
        FIX_FILE,
        '--model',
        'openai/hunter',
        '--base-url',
        server.baseUrl,
      ];
      argv.push('--runtime', runtime, '--trace-dir', traceDir, '--json');
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
      assert.equal(result.status, 'completed');
      const trace = readFileSync(result.trace, 'utf8');
      // What the model saw is what came back to the server in the later requests.
      const seen = server.requests.map((r) => JSON.stringify(r.body)).join('\n');
      // The hunt really ran: the dumps are there.
      assert.match(seen, /ENV-DUMP/);
      assert.match(seen, /PROC-DUMP [1-9]/);
      assert.match(seen, /HUNT-DONE/);
      for (const [name, value] of Object.entries(KEYS)) {
        assert.equal(seen.includes(value), false, `${name} reached the model through a tool`);
        assert.equal(trace.includes(value), false, `${name} is in the trace`);
        assert.equal(stdout.includes(value) || stderr.includes(value), false, `${name} is in the CLI output`);
      }
      assert.equal(
        server.requests[0]!.headers['authorization'],
        `Bearer ${KEYS.OPENAI_API_KEY}`,
        'only the model server got its key',
      );
    } finally {
      await server.close();
    }
  });
}
