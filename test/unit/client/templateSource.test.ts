/**
 * Stale detection: the template block cut out of a file must be exactly what
 * Python's inspect.getsource recorded in the trace (checked against the real
 * python3), and a change anywhere in the block, but nowhere else, is stale.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  fileWithStoredBlock,
  isStale,
  normalizeSource,
  sourceChanged,
  staleText,
  staleness,
  templateBlock,
} from '../../../client/src/templateSource';

const ENV = `import json
from hud import Environment

env = Environment("demo")


def helper(x):
    return x


@env.template(id="plain")
async def plain(word: str):
    answer = yield f"Say {word}"
    yield 1.0 if answer == word else 0.0


@env.template(
    id="multi",
)
async def multi(
    target: str,
    count: int = 2,
):
    prompt = """
Write the word
  several times:
"""
    answer = yield prompt  # a comment
    # a comment in the body

    hits = str(answer).count(target)
    yield {"score": min(1.0, hits / count), "hits": hits}
    # trailing comment

# a comment after the function


class Tail:
    pass


@env.template(id="comments")
async def comments():
    x = yield "go"
    # c1

    # c2
# c3
    # c4

@env.template(id="shallow")
async def shallow():
    x = yield "go"

    # d1
  # d2
# d3
@env.template(id="last")
async def last():
    yield 1.0
`;

function defLine(src: string, name: string): number {
  return src.split('\n').findIndex((l) => l.includes(`async def ${name}`));
}

describe('templateBlock', () => {
  test('matches inspect.getsource of the real python3, decorators and odd layouts included', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hud-tplsrc-'));
    try {
      const file = join(dir, 'demo_env.py');
      // A stand-in for the SDK's decorator: inspect only needs the functions to exist.
      writeFileSync(file, ENV.replace('from hud import Environment', 'Environment = None'));
      const py = [
        'import importlib.util, inspect, json, sys, types',
        'class E:',
        '    def __init__(self, name): pass',
        '    def template(self, **kw): return lambda f: f',
        'spec = importlib.util.spec_from_file_location("demo_env", sys.argv[1])',
        'm = importlib.util.module_from_spec(spec)',
        'm.__dict__["Environment"] = E',
        'src = open(sys.argv[1]).read().replace("Environment = None", "")',
        'exec(compile(src, sys.argv[1], "exec"), m.__dict__)',
        'print(json.dumps({n: inspect.getsource(getattr(m, n)) for n in ["plain", "multi", "comments", "shallow", "last"]}))',
      ].join('\n');
      const r = spawnSync('python3', ['-c', py, file], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      const want = JSON.parse(r.stdout) as Record<string, string>;
      const text = ENV.replace('from hud import Environment', 'Environment = None');
      for (const name of ['plain', 'multi', 'comments', 'shallow', 'last']) {
        const block = templateBlock(text, defLine(text, name));
        assert.ok(block, name);
        assert.equal(block.text, normalizeSource(want[name]!), name);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('starts at the first decorator of several lines; keeps comments indented like the body', () => {
    const b = templateBlock(ENV, defLine(ENV, 'multi'))!;
    const lines = ENV.split('\n');
    assert.equal(lines[b.start], '@env.template(');
    assert.equal(lines[b.end - 1], '    # trailing comment');
  });

  test('a line that is not a def or decorator has no block', () => {
    assert.equal(templateBlock(ENV, 0), undefined);
  });
});

describe('staleness', () => {
  const stored = templateBlock(ENV, defLine(ENV, 'plain'))!.text + '\n';

  test('white space at line ends and CRLF do not count; a changed body does', () => {
    assert.equal(sourceChanged(stored, stored.replace(/\n/g, '  \r\n')), false);
    assert.equal(sourceChanged(stored, stored.replace('1.0 if', '0.5 if')), true);
  });

  test('an unknown source is never stale', () => {
    assert.equal(sourceChanged(undefined, 'x'), false);
    assert.equal(sourceChanged('', 'x'), false);
    assert.equal(sourceChanged('x', undefined), false);
  });

  test('template and verifier are judged apart', () => {
    const s = staleness({ task: { source: stored }, verifier: { source: 'v1' } }, { template: stored, verifier: 'v2' });
    assert.deepEqual(s, { template: false, verifier: true });
    assert.equal(isStale(s), true);
    assert.equal(staleText(s), 'verifier changed');
    assert.equal(staleText({ template: true, verifier: true }), 'template and verifier changed');
    assert.equal(isStale(staleness({ task: { source: stored }, verifier: null }, { template: stored })), false);
  });
});

describe('fileWithStoredBlock', () => {
  test('puts the stored template in place of the current one and leaves the rest of the file alone', () => {
    const now = ENV.replace('yield 1.0 if answer == word else 0.0', 'yield 1.0 if word in answer else 0.0');
    const stored = templateBlock(ENV, defLine(ENV, 'plain'))!.text;
    const block = templateBlock(now, defLine(now, 'plain'))!;
    assert.equal(fileWithStoredBlock(now, block, stored), ENV);
  });
});
