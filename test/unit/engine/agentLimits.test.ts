/**
 * The launcher every command of a sandboxed agent starts through
 * (providers/agentLimits.ts): it sets the process limit under the host's
 * real /bin/sh and hands the command its arguments untouched.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { AGENT_PROCESS_LIMIT, underAgentLimits } from '../../../client/src/engine/providers/agentLimits';

function run(argv: string[]): string {
  const [program, ...args] = underAgentLimits(argv);
  const r = spawnSync(program ?? '', args, { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

test("the agent's command runs with the process limit set", () => {
  const limits = run(['cat', '/proc/self/limits']);
  const line = limits.split('\n').find((l) => l.startsWith('Max processes'));
  assert.deepEqual(line?.split(/\s+/).slice(2, 4), [String(AGENT_PROCESS_LIMIT), String(AGENT_PROCESS_LIMIT)]);
});

test('the command gets its arguments as given: spaces, quotes, $ and an empty one', () => {
  const given = ['a b', "it's", '$HOME', '', '-c'];
  const out = run(['python3', '-c', 'import json, sys; print(json.dumps(sys.argv[1:]))', ...given]);
  assert.deepEqual(JSON.parse(out), given);
});
