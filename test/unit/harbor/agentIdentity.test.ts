import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentIdentityOf } from '../../../client/src/engine/harbor/checkBeside';

test("the agent's identity is read from the real uid, gid and groups of its /proc/self/status", () => {
  const status =
    'no python3\nsearch /usr/bin\nUid:\t1000\t1000\t1000\t1000\nGid:\t1001\t1001\t1001\t1001\nGroups:\t1001 27 \n';
  assert.deepEqual(agentIdentityOf(status), { uid: 1000, gid: 1001, groups: [1001, 27] });
});

test('an agent in no supplementary group has an empty list', () => {
  assert.deepEqual(agentIdentityOf('Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nGroups:\t\n'), { uid: 0, gid: 0, groups: [] });
});

test('without a readable uid or gid there is nobody to check as', () => {
  assert.equal(agentIdentityOf('Gid:\t1\t1\t1\t1\nGroups:\n'), undefined);
  assert.equal(agentIdentityOf('Uid:\tx\nGid:\t1\n'), undefined);
  assert.equal(agentIdentityOf('Uid:\t1\nGid:\t1\nGroups:\t2 -3\n'), undefined);
  assert.equal(agentIdentityOf(''), undefined);
});

test('a "search" line naming Uid: is not read as the identity', () => {
  assert.deepEqual(agentIdentityOf('search Uid:\t5\nUid:\t7\t7\t7\t7\nGid:\t8\t8\t8\t8\nGroups:\t8\n'), {
    uid: 7,
    gid: 8,
    groups: [8],
  });
});
