/**
 * Imports in a module-level `try:` whose body only imports (the usual guard
 * for an optional dependency): under the SDK they succeed, so the module's
 * environments, templates and tasks count as if the imports stood alone.
 * Each module the index reads is also run by the bundled runtime's
 * discovery, which must find the same.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { agrees, indexed, indexesNothing, taskTriples, VERIFIABLE_ENV } from './discovery';

const TASK = '\ntask = solve(level=1)\ntask.verifier = check(expected="x")\n';
/** VERIFIABLE_ENV with its `from hud import Environment` line replaced by `imports`. */
const guarded = (imports: string) => VERIFIABLE_ENV.replace('from hud import Environment\n', imports) + TASK;

describe('imports in a try', () => {
  test('a body of imports binds its names: the module is read as with the imports alone', async () => {
    for (const imports of [
      'try:\n    from hud import Environment\nexcept ImportError:\n    raise\n',
      // Comments, blank lines, a parenthesised import over several lines, `pass`, and a fallback that never runs.
      'try:\n    # the SDK\n    from hud import (\n        Environment,\n    )\n\n    import json\n    pass\nexcept ImportError:  # without it\n    Environment = None\n',
      'try:  # optional\n    import hud\n    from hud import Environment\nfinally:\n    pass\n',
    ]) {
      const found = await agrees(guarded(imports));
      assert.deepEqual(taskTriples(found), [['task', 'solve', 'check']], imports);
    }
  });

  test("what hud's SDK rejects is reported there too", async () => {
    const found = await indexed(
      guarded('try:\n    from hud import Enviroment, Environment\nexcept ImportError:\n    raise\n'),
    );
    assert.deepEqual(
      found.problems.map((p) => [p.code, p.range.start.line]),
      [['hud-unknown-import', 1]],
    );
  });

  test('a body that does anything else is not read', async () => {
    for (const imports of [
      'try:\n    from hud import Environment\n    x = 1\nexcept ImportError:\n    raise\n',
      'try:\n    from hud import Environment; import json\nexcept ImportError:\n    raise\n',
      'try: from hud import Environment\nexcept ImportError:\n    raise\n',
    ]) {
      await indexesNothing(guarded(imports));
    }
  });
});
