/**
 * The snippets HUD Studio contributes (snippets/python.code-snippets, issue
 * 15 item 8): each parses, is contributed, has a `hud-` prefix and a body
 * whose placeholders are well formed. Expanded with their defaults (and a
 * few filled in, as a person would type), they make env.py files the
 * language server indexes without a problem: templates, tasks and the
 * verifier link. The same files import under the bundled runtime.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { workspace } from './helpers';

const REPO = join(__dirname, '..', '..', '..');
const SNIPPETS = 'snippets/python.code-snippets';

interface Snippet {
  prefix: string;
  description: string;
  body: string[];
}

const snippets = JSON.parse(readFileSync(join(REPO, SNIPPETS), 'utf8')) as Record<string, Snippet>;
const byPrefix = new Map(Object.values(snippets).map((s) => [s.prefix, s]));

/** `${N:default}`, `${N}` or `$N`; a default may hold nested placeholders. */
const PLACEHOLDER = /\$\{(\d+)(?::((?:[^{}\\]|\\.|\{[^{}]*\})*))?\}|\$(\d+)/g;

/**
 * Expands a body as VS Code inserts it: each tab stop takes `fill[N]`, else
 * its first default; a repeated number mirrors the same text. Lines get
 * `indent`, as VS Code indents a snippet to the cursor's line.
 */
function expand(s: Snippet, fill: Record<number, string> = {}, indent = ''): string {
  const text = s.body.join('\n');
  const values = new Map<number, string>();
  for (const m of text.matchAll(PLACEHOLDER)) {
    const n = Number(m[1] ?? m[3]);
    if (!values.has(n) && m[2] !== undefined) values.set(n, m[2]);
  }
  const unescape = (t: string) => t.replace(/\\([}$\\])/g, '$1');
  const out = text.replace(PLACEHOLDER, (_all, a: string | undefined, _d, b: string | undefined) => {
    const n = Number(a ?? b);
    return unescape(fill[n] ?? values.get(n) ?? '');
  });
  return out
    .split('\n')
    .map((l) => (l ? indent + l : l))
    .join('\n');
}

describe('snippets/python.code-snippets', () => {
  test('is contributed for Python, and every snippet has a hud- prefix, a description and a body', () => {
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
      contributes: { snippets: { language: string; path: string }[] };
    };
    assert.ok(pkg.contributes.snippets.some((c) => c.language === 'python' && c.path === `./${SNIPPETS}`));
    assert.deepEqual([...byPrefix.keys()].sort(), [
      'hud-combine',
      'hud-env',
      'hud-task',
      'hud-template',
      'hud-verifier',
    ]);
    for (const [name, s] of Object.entries(snippets)) {
      assert.ok(s.description.length > 10, `${name}: a description`);
      assert.ok(Array.isArray(s.body) && s.body.every((l) => typeof l === 'string'), `${name}: body lines`);
      const joined = s.body.join('\n');
      assert.ok(joined.endsWith('$0'), `${name}: the cursor ends after the snippet`);
      assert.ok(!joined.includes('\t'), `${name}: spaces, not tabs (Python)`);
      const stops = [...joined.matchAll(PLACEHOLDER)].map((m) => Number(m[1] ?? m[3]));
      const used = [...new Set(stops)].filter((n) => n > 0).sort((a, b) => a - b);
      assert.deepEqual(
        used,
        used.map((_, i) => i + 1),
        `${name}: tab stops are numbered 1..n without gaps`,
      );
      assert.doesNotMatch(expand(s), /\$\{|\$\d/, `${name}: every placeholder expands`);
    }
  });

  test('hud-env alone: one environment, one template and a task, nothing to report', async () => {
    const text = expand(byPrefix.get('hud-env')!);
    const ws = await workspace({ 'envs/env.py': text });
    assert.deepEqual(ws.problems('envs/env.py'), [], text);
    const index = ws.analyzer.workspace.index();
    assert.deepEqual(
      index.environments.map((e) => [e.variable, e.name]),
      [['env', 'my-env']],
    );
    assert.deepEqual(
      index.templates.map((t) => [t.env, t.id, t.params.map((p) => p.name)]),
      [['my-env', 'solve', ['question']]],
    );
    assert.deepEqual(
      index.tasks.map((t) => [t.ref, t.templateId]),
      [['envs/env.py::task', 'solve']],
    );
  });

  const composed = (): string =>
    [
      expand(byPrefix.get('hud-env')!),
      'from hud.graders import SubScore, combine, contains, exact_match',
      '',
      'judge = Environment("judge")',
      '',
      '',
      expand(byPrefix.get('hud-template')!, { 2: 'greet', 4: 'name: str', 5: 'Say hello.' }),
      '',
      expand(byPrefix.get('hud-verifier')!),
      '',
      '@env.template(id="weighted")',
      'async def weighted(expected: str):',
      '    answer = yield "Answer the question."',
      expand(byPrefix.get('hud-combine')!, {}, '    '),
      '',
      expand(byPrefix.get('hud-task')!, { 1: 'checked', 3: 'question="2+2"', 5: 'expected="4"' }),
      expand(byPrefix.get('hud-task')!, { 1: 'hello', 2: 'greet', 3: 'name="Ada"', 5: 'expected="Hello Ada"' }),
      'scored = weighted(expected="4")',
      '',
    ].join('\n');

  test('every snippet together: templates, tasks and the verifier links index without a problem', async () => {
    const text = composed();
    const ws = await workspace({ 'envs/env.py': text });
    assert.deepEqual(ws.problems('envs/env.py'), [], text);
    const index = ws.analyzer.workspace.index();
    assert.deepEqual(index.templates.map((t) => `${t.env}/${t.id}`).sort(), [
      'judge/verify',
      'my-env/greet',
      'my-env/solve',
      'my-env/weighted',
    ]);
    assert.ok(index.templates.find((t) => t.id === 'verify')!.agentless, 'the verifier snippet is agent-less');
    const tasks = new Map(index.tasks.map((t) => [t.ref.split('::')[1], t]));
    assert.deepEqual([...tasks.keys()].sort(), ['checked', 'hello', 'scored', 'task']);
    for (const name of ['checked', 'hello']) {
      const v = tasks.get(name)!.verifier;
      assert.deepEqual([v?.env, v?.templateId, v?.sameEnvironment], ['judge', 'verify', false], name);
    }
  });

  test('the composed file imports under the bundled runtime, with the tasks the index saw', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hud-snippets-'));
    try {
      writeFileSync(join(dir, 'env.py'), composed());
      const out = execFileSync(
        'python3',
        [
          '-c',
          'import runpy, sys; m = runpy.run_path(sys.argv[1]); print(" ".join(sorted(k for k, v in m.items() if type(v).__name__ == "Task")))',
          join(dir, 'env.py'),
        ],
        { env: { ...process.env, PYTHONPATH: join(REPO, 'runtime', 'python') }, encoding: 'utf8' },
      );
      assert.equal(out.trim(), 'checked hello scored task');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
