/**
 * Editor features over the analysed workspace: CodeLens, hover, definition,
 * references, symbols and keyword completion.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { codeLenses } from '../../../server/src/features/codeLens';
import { complete, completeKeywords, enclosingCall } from '../../../server/src/features/completion';
import { hover } from '../../../server/src/features/hover';
import { definition, references } from '../../../server/src/features/navigation';
import { documentSymbols, workspaceSymbols } from '../../../server/src/features/symbols';
import { Commands } from '../../../common/lspMessages';
import { py, workspace } from './helpers';

const JUDGE = py`
  from hud import Environment

  judge = Environment("judge")

  @judge.template(id="verify", description="Checks the answer")
  async def verify(expected: str):
      result = yield ""
      yield 1.0 if result["answer"] == expected else 0.0
`;

const ENV = py`
  from hud import Environment
  from envs.judge import verify

  actor = Environment("workspace")

  @actor.template(id="solve")
  async def solve(level: int, mode: str = "fast"):
      answer = yield "Write the secret to the target system."
      yield {"score": 0.0, "answer": answer}

  task = solve(1)
  task.verifier = verify(expected="secret")
  plain = solve(2)
`;

async function fixture() {
  const ws = await workspace({ 'envs/judge.py': JUDGE, 'envs/env.py': ENV });
  const env = ws.path('envs/env.py');
  const judge = ws.path('envs/judge.py');
  const at = (text: string, needle: string, delta = 1) => {
    const i = text.indexOf(needle) + delta;
    const before = text.slice(0, i);
    return { line: before.split('\n').length - 1, character: i - before.lastIndexOf('\n') - 1 };
  };
  return { ws, env, judge, at };
}

describe('editor features', () => {
  test('CodeLens: Run task on every task (naming the verifier) and Run template on templates', async () => {
    const { ws, env } = await fixture();
    const lenses = codeLenses(ws.analyzer.workspace, env);
    const runs = lenses.filter((l) => l.command?.command === Commands.runTask);
    assert.deepEqual(
      runs.map((l) => [l.command!.title, (l.command!.arguments![0] as Commands.RunTaskArgs).ref, l.range.start.line]),
      [
        ['▶ Run task · verifier judge/verify', 'envs/env.py::task', 10],
        ['▶ Run task', 'envs/env.py::plain', 12],
      ],
    );
    assert.equal((runs[0]!.command!.arguments![0] as Commands.RunTaskArgs).uri, ws.analyzer.workspace.uriOf(env));
    const templates = lenses.filter((l) => l.command?.command === Commands.runTemplate);
    assert.deepEqual(
      templates.map((l) => [l.command!.title, l.command!.arguments![0]]),
      [['▶ Run template…', { uri: ws.analyzer.workspace.uriOf(env), env: 'workspace', templateId: 'solve' }]],
    );
  });

  test('hover on a task call shows the signature, environment, prompt and verifier', async () => {
    const { ws, env, at } = await fixture();
    const h = hover(ws.analyzer.workspace, env, at(ENV, 'task = solve', 8));
    const value = (h?.contents as { value: string }).value;
    assert.match(value, /async def solve\(level: int, mode: str = "fast"\)/);
    assert.match(value, /environment `workspace`/);
    assert.match(value, /> Write the secret to the target system\./);
    assert.match(value, /\*\*Verifier\*\* `judge\/verify`/);
    const onVerifier = hover(ws.analyzer.workspace, env, at(ENV, 'verify(expected'));
    assert.match((onVerifier?.contents as { value: string }).value, /Agent-less/);
    assert.equal(hover(ws.analyzer.workspace, env, { line: 0, character: 1 }), null);
  });

  test('definition goes from a task or verifier call to its template; references come back', async () => {
    const { ws, env, judge, at } = await fixture();
    const toVerify = definition(ws.analyzer.workspace, env, at(ENV, 'verify(expected'));
    assert.equal(toVerify.length, 1);
    assert.equal(toVerify[0]!.uri, ws.analyzer.workspace.uriOf(judge));
    assert.equal(toVerify[0]!.range.start.line, 5);
    const toSolve = definition(ws.analyzer.workspace, env, at(ENV, 'plain = solve', 9));
    assert.equal(toSolve[0]!.range.start.line, 6);

    const refs = references(ws.analyzer.workspace, env, at(ENV, 'def solve', 5), false);
    assert.deepEqual(refs.map((r) => r.range.start.line).sort(), [10, 12]);
    const fromJudge = references(ws.analyzer.workspace, judge, at(JUDGE, 'def verify', 5), true);
    assert.deepEqual(
      fromJudge.map((r) => [r.uri.endsWith('judge.py') ? 'judge' : 'env', r.range.start.line]),
      [
        ['judge', 5],
        ['env', 11],
      ],
    );
  });

  test('document and workspace symbols', async () => {
    const { ws, env } = await fixture();
    const symbols = documentSymbols(ws.analyzer.workspace, env);
    assert.deepEqual(
      symbols.map((s) => s.name),
      ['workspace', 'task', 'plain'],
    );
    assert.deepEqual(
      symbols[0]!.children!.map((s) => s.name),
      ['solve'],
    );
    const found = workspaceSymbols(ws.analyzer.workspace, 'vrfy');
    assert.deepEqual(
      found.map((s) => [s.name, s.containerName]),
      [['verify', 'judge']],
    );
  });

  test('completion offers the template keyword arguments not yet written', async () => {
    const { ws, env } = await fixture();
    const text = `${ENV}more = solve(1, mode="x", `;
    ws.analyzer.openDocument(env, text, 1);
    const items = completeKeywords(ws.analyzer.workspace, env, text, text.length);
    assert.deepEqual(
      items.map((i) => i.label),
      ['level='],
    );
    const fresh = `${ENV}more = verify(`;
    const verifyItems = completeKeywords(ws.analyzer.workspace, env, fresh, fresh.length);
    assert.deepEqual(
      verifyItems.map((i) => [i.label, i.detail]),
      [['expected=', 'str (required)']],
    );
    assert.deepEqual(completeKeywords(ws.analyzer.workspace, env, 'print(', 6), [], 'not a template');
    assert.deepEqual(enclosingCall('f(a, [1, 2], g(x), ', 19)?.callee, ['f']);
    // verifier= is the SDK's Task field: completed there, not in a template's call (which rejects it on import).
    const labels = (t: string) => complete(ws.analyzer.workspace, env, t, t.length).map((i) => i.label);
    assert.deepEqual(labels(`${ENV}t = Task(env="workspace", id="solve", verifier=`), ['verify(…)']);
    assert.deepEqual(labels(`${ENV}t.verifier = `), ['verify(…)']);
    assert.ok(!labels(`${ENV}t = solve(1, verifier=`).includes('verify(…)'));
    assert.equal(enclosingCall('f(a) + ', 7), undefined);
  });
});
