/**
 * The launcher every command of a sandboxed agent starts through
 * (providers/agentLimits.ts): it sets the process limit under the host's
 * real /bin/sh and hands the command its arguments untouched; and the
 * Docker seats' users, one per seat, that the limit is counted for.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { AGENT_PROCESS_LIMIT, underAgentLimits } from '../../../client/src/engine/providers/agentLimits';
import type { DockerContainer } from '../../../client/src/engine/docker/container';
import { AGENT_UIDS, DockerAgentSeat } from '../../../client/src/engine/providers/dockerAgentSeat';

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

test('each Docker seat is a user of its own, so concurrent agents do not share one process limit', () => {
  const container = { imageLabels: {} } as unknown as DockerContainer;
  const uids = Array.from({ length: 3 }, () => new DockerAgentSeat(container, '/opt/hud-studio/env').agentUid);
  assert.equal(new Set(uids).size, 3, uids.join(' '));
  for (const uid of uids) assert.ok(uid >= AGENT_UIDS.first && uid < AGENT_UIDS.first + AGENT_UIDS.count, `${uid}`);
});
