/**
 * Quick fixes over real stdio against the bundled server: a file with every
 * common mistake is repaired by applying the preferred code action of each
 * diagnostic in turn, as a user clicking the light bulb would, until the
 * server publishes nothing more. Also: verifier completion after
 * `.verifier =` and hovers on the SDK's own names.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  CodeActionRequest,
  CompletionRequest,
  HoverRequest,
  type CodeAction,
  type Diagnostic,
  type Hover,
} from 'vscode-languageserver-protocol';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { pathToUri } from '../../../server/src/analysis/paths';
import { startServer, type LspClient } from './lspClient';

const JUDGE = `from hud import Environment

judge = Environment("judge")


@judge.template(id="verify")
async def verify(expected: str):
    result = yield ""
    yield 1.0 if result["answer"] == expected else 0.0


@judge.template(id="chatty")
async def chatty():
    result = yield "Please grade this."
    yield 1.0
`;

const ENV = `from hud import Environment
from hud.graders import combine, exact_match
from envs.judge import verify, chatty

actor = Environment("workspace")


@actor.template(id="solve")
async def solve(level: int, mode: str = "fast"):
    answer = yield "Solve it."
    yield {"answer": answer}


@actor.template(id="once")
async def once():
    answer = yield "Only a prompt."


@actor.template(id="graded")
async def graded():
    answer = yield "Say hi."
    yield combine(exact_match(answer, "hi"))


@actor.scenario(id="old")
async def old():
    yield "x"
    yield 1.0


typo = solve(levl=1)
missing = solve(mode="slow")
wrong_type = solve(1, mode=3)
inner = verify(expected="a")
inner.verifier = verify(expected="b")
outer = solve(2)
outer.verifier = inner
prompted = solve(3)
prompted.verifier = chatty()
`;

describe('quick fixes, completion and SDK hovers over stdio (bundled server)', () => {
  let dir: string;
  let lsp: LspClient;
  const texts = new Map<string, TextDocument>();

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hud-fixes-'));
    mkdirSync(join(dir, 'envs'));
    writeFileSync(join(dir, 'envs', 'judge.py'), JUDGE);
    writeFileSync(join(dir, 'envs', 'env.py'), ENV);
    lsp = await startServer(dir);
    for (const [rel, text] of [
      ['envs/judge.py', JUDGE],
      ['envs/env.py', ENV],
    ] as const) {
      const uri = pathToUri(join(dir, rel));
      texts.set(uri, TextDocument.create(uri, 'python', 1, text));
      await lsp.open(uri, text);
    }
  });

  after(async () => {
    await lsp?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const envUri = () => pathToUri(join(dir, 'envs', 'env.py'));
  const published = (uri: string) => lsp.diagnostics.get(uri);

  async function apply(action: CodeAction): Promise<void> {
    for (const [uri, edits] of Object.entries(action.edit?.changes ?? {})) {
      const doc = texts.get(uri);
      assert.ok(doc, `an edit for ${uri}, which is not open (open: ${[...texts.keys()].join(', ')})`);
      const text = TextDocument.applyEdits(doc, edits);
      const next = TextDocument.create(uri, 'python', doc.version + 1, text);
      texts.set(uri, next);
      await lsp.change(uri, next.version, [{ text }]);
    }
  }

  test('every fixable diagnostic is fixed by its preferred code action, until none is left', async () => {
    const uri = envUri();
    // The judge module links once it is indexed too: wait for a diagnostic that needs it.
    await lsp.until(
      'linked diagnostics of env.py',
      () => !!published(uri)?.diagnostics.some((d) => d.code === 'verifier-not-agentless'),
    );
    const initial = published(uri)!
      .diagnostics.map((d) => String(d.code))
      .sort();
    assert.deepEqual(initial, [
      'grade-not-awaited',
      'result-missing-score',
      'task-arg-type',
      'task-bad-args',
      'task-bad-args',
      'task-bad-args',
      'template-single-yield',
      'v5-scenario-api',
      'verifier-nested',
      'verifier-not-agentless',
    ]);
    const applied: string[] = [];
    for (let round = 0; round < 20; round++) {
      const current = published(uri)!.diagnostics;
      if (current.length === 0) break;
      const d: Diagnostic = current[0]!;
      const actions =
        (await lsp.conn.sendRequest(CodeActionRequest.type, {
          textDocument: { uri },
          range: d.range,
          context: { diagnostics: [d], only: ['quickfix'] },
        })) ?? [];
      const preferred = actions.find((a): a is CodeAction => 'isPreferred' in a && a.isPreferred === true);
      assert.ok(preferred, `no preferred quick fix for ${String(d.code)}: ${d.message}`);
      assert.equal(preferred.kind, 'quickfix');
      applied.push(`${String(d.code)}: ${preferred.title}`);
      const before = published(uri);
      await apply(preferred);
      await lsp.until(`diagnostics after fixing ${String(d.code)}`, () => published(uri) !== before);
    }
    assert.deepEqual(published(uri)!.diagnostics, [], `left: ${JSON.stringify(published(uri)!.diagnostics)}`);
    const fixed = texts.get(uri)!.getText();
    assert.match(fixed, /typo = solve\(level=1\)/);
    assert.match(fixed, /missing = solve\(mode="slow", level=\.\.\.\)/);
    assert.match(fixed, /wrong_type = solve\(1, mode="3"\)/);
    assert.match(fixed, /inner = verify\(expected="a"\)\nouter = solve\(2\)/, 'the inner verifier line is gone');
    assert.match(fixed, /yield await combine\(exact_match\(answer, "hi"\)\)/);
    assert.match(fixed, /answer = yield "Only a prompt\."\n {4}yield 0\.0/);
    assert.match(fixed, /yield \{"score": 0\.0, "answer": answer\}/);
    assert.match(fixed, /@actor\.template\(id="old"\)/);
    assert.match(
      texts.get(pathToUri(join(dir, 'envs', 'judge.py')))!.getText(),
      /result = yield ""\n {4}yield 1\.0\n$/,
      'chatty became agent-less',
    );
    assert.equal(applied.length, 9, applied.join('\n'));
  });

  test('after `.verifier =`, completion offers the agent-less templates as calls, with their import', async () => {
    const uri = envUri();
    const doc = texts.get(uri)!;
    const text = `${doc.getText()}late = solve(4)\nlate.verifier = `;
    const next = TextDocument.create(uri, 'python', doc.version + 1, text);
    texts.set(uri, next);
    await lsp.change(uri, next.version, [{ text }]);
    const position = next.positionAt(text.length);
    const completion = await lsp.conn.sendRequest(CompletionRequest.type, { textDocument: { uri }, position });
    const items = Array.isArray(completion) ? completion : (completion?.items ?? []);
    const labels = items.map((i) => i.label).sort();
    assert.ok(labels.includes('verify(…)'), labels.join(', '));
    assert.ok(labels.includes('chatty(…)'), 'chatty is agent-less since the quick fix');
    assert.ok(!labels.includes('solve(…)'), 'a template that prompts is not offered');
    const verify = items.find((i) => i.label === 'verify(…)')!;
    assert.equal(verify.insertText, 'verify($1)');
    assert.equal(verify.additionalTextEdits, undefined, 'verify is already imported');
  });

  test('hover on SDK names shows their signature with defaults', async () => {
    const uri = envUri();
    const doc = texts.get(uri)!;
    const text = doc.getText();
    const hoverAt = async (needle: string, delta = 1) => {
      const position = doc.positionAt(text.indexOf(needle) + delta);
      return await lsp.conn.sendRequest(HoverRequest.type, { textDocument: { uri }, position });
    };
    const value = (h: Hover | null) => (h?.contents as { value: string } | undefined)?.value ?? '';
    assert.match(
      value(await hoverAt('exact_match(answer')),
      /def exact_match\(answer.*expected.*normalize_text: bool = True/s,
    );
    assert.match(value(await hoverAt('combine(exact')), /async def combine\(/);
    assert.match(value(await hoverAt('Environment("workspace")')), /class Environment\(name: str/);
  });
});
