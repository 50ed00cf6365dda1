/**
 * A template whose definition holds a syntax error (TemplateFacts.broken): while the user types, the parser's
 * recovery makes a guess of its parameters and body, and problems read from that guess were said beside the
 * syntax error (a call with `level=` "unexpected" for a list left open, "never yields" for a `def` without its
 * colon). Each case is checked against the same file with the definition fixed, where the problem is real.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hover } from '../../../server/src/features/hover';
import { workspace } from './helpers';

const HEAD = 'from hud import Environment\n\nenv = Environment("demo")\n\n\n@env.template(id="solve")\n';

/** A template whose body yields once, called with an argument it does not take: two real problems when intact. */
const ONCE = (def: string) => `${HEAD}${def}\n    answer = yield "Solve it"\n\n\ntask = solve(level=2, colour="red")\n`;

const BROKEN_DEFS: [string, string][] = [
  ['a parameter list left open', 'async def solve(level: int = 1:'],
  ['a def without its colon', 'async def solve(level: int = 1)'],
];

for (const [what, def] of BROKEN_DEFS) {
  test(`a template with ${what} says only its syntax error, not what its guessed signature and body would`, async () => {
    const intact = await workspace({ 'env.py': ONCE('async def solve(level: int = 1):') });
    assert.deepEqual(intact.codes('env.py').sort(), ['task-bad-args', 'template-single-yield']);
    const ws = await workspace({ 'env.py': ONCE(def) });
    assert.deepEqual(ws.codes('env.py'), []);
    const [template] = ws.analyzer.workspace.index().templates;
    assert.equal(template?.id, 'solve', 'the template is still indexed while it is being typed');
    assert.equal(template.broken, true);
    const line = ONCE(def)
      .split('\n')
      .findIndex((l) => l.startsWith('task = solve'));
    const said = hover(ws.analyzer.workspace, ws.path('env.py'), { line, character: 8 });
    assert.match((said?.contents as { value: string }).value, /syntax error: this signature is a guess/);
    assert.equal(intact.analyzer.workspace.index().templates[0]?.broken, undefined);
  });
}

test('a broken verifier in another module is not checked, and neither are the calls made to it', async () => {
  const judge = (def: string) =>
    `${HEAD.replace('"demo"', '"judge"').replace('solve', 'verify')}${def}\n    yield "Grade it"\n`;
  const env = `from hud import Environment\nfrom judge import verify\n\nenv = Environment("demo")\n\n\n@env.template(id="solve")\nasync def solve():\n    answer = yield "Solve it"\n    yield 1.0\n\n\ntask = solve()\ntask.verifier = verify(wrong=1)\n`;
  const intact = await workspace({ 'env.py': env, 'judge.py': judge('async def verify(expected: str = "x"):') });
  assert.deepEqual(intact.codes('env.py').sort(), ['task-bad-args', 'verifier-not-agentless']);
  const ws = await workspace({ 'env.py': env, 'judge.py': judge('async def verify(expected: str = "x":') });
  assert.deepEqual(ws.codes('env.py'), []);
});

test('a syntax error in another statement leaves a template intact and checked', async () => {
  const ws = await workspace({ 'env.py': `${ONCE('async def solve(level: int = 1):')}\nbroken = (1,\n` });
  assert.ok(ws.codes('env.py').includes('task-bad-args'), ws.codes('env.py').join(', '));
});
