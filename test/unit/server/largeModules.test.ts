/**
 * Modules with many names (generated task lists) are resolved through a map
 * of their names instead of scanning their lists at every lookup
 * (resolver.ts). The map must give the answers the scan gives, in the same
 * order of precedence: the same module, short and padded past the size
 * where the map takes over, links to the same index and problems.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ENV_HEADER, py, workspace } from './helpers';

/** Every kind of name a verifier or a callee can meet, with names bound twice. */
const MODULE =
  ENV_HEADER +
  py`
    from other import thing

    @env.template()
    async def solve(level: int):
        yield "go"
        yield 1.0

    @env.template()
    async def check(level: int):
        yield ""
        yield 1.0

    def helper():
        pass

    suite = [solve(level=1), solve(level=2)]
    first = check(level=1)
    twice = check(level=2)
    twice = solve(level=3)
    by_task = solve(level=4)
    by_task.verifier = first
    by_list = solve(level=5)
    by_list.verifier = suite
    by_env = solve(level=6)
    by_env.verifier = env
    by_def = solve(level=7)
    by_def.verifier = helper
    by_import = solve(level=8)
    by_import.verifier = thing
    by_unknown = solve(level=9)
    by_unknown.verifier = nothing
    by_twice = solve(level=10)
    by_twice.verifier = twice
    by_template = solve(level=11)
    by_template.verifier = check(level=1)
    by_shadowed = solve(level=12)
    by_shadowed.verifier = solve
    tasks = [check(level=2)]
    tasks_user = solve(level=13)
    tasks_user.verifier = tasks
  `;

test('a module past the size of the name map links as it does when its lists are scanned', async () => {
  // Padding after the module's own lines keeps every range where it was.
  const padding = Array.from({ length: 80 }, (_, i) => `def pad_${i}():\n    pass\n`).join('');
  const small = await workspace({ 'env.py': MODULE });
  const large = await workspace({ 'env.py': `${MODULE}\n${padding}` });
  const index = (ws: typeof small) => ({ ...ws.analyzer.workspace.index(), version: 0 });
  assert.deepEqual(index(large), index(small));
  assert.deepEqual(large.problems('env.py'), small.problems('env.py'));
  // The cases are there to be told apart: some link, some are named problems, some are left alone.
  const verifiers = new Map(index(small).tasks.map((t) => [t.label, t.verifier?.templateId]));
  assert.equal(verifiers.get('by_task'), 'check');
  assert.equal(verifiers.get('by_template'), 'check');
  assert.equal(verifiers.get('by_import'), undefined);
  const problems = small.problems('env.py').map((p) => `${p.code}@${p.range.start.line}`);
  for (const name of ['by_list', 'by_env', 'by_def', 'by_unknown', 'by_shadowed', 'tasks_user']) {
    const line = MODULE.split('\n').findIndex((l) => l.startsWith(`${name}.verifier =`));
    assert.ok(
      problems.some((p) => p.endsWith(`@${line}`)),
      `${name} (line ${line + 1}) has a problem: ${problems.join(', ')}`,
    );
  }
});
