/**
 * What a statement puts into what (readOnlyMention.ts): forEachKept
 * settles most mentions from the text map and asks the tree (keptIn) about
 * the rest. Whatever it settles must be a mention keptIn puts nowhere, so
 * both must give the same holders, name by name, in order; keywords and
 * numbers, which hold no Task, are left out of the comparison.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { moduleStatementStarts } from '../../../server/src/analysis/moduleLayout';
import { forEachKept, keptIn } from '../../../server/src/analysis/readOnlyMention';
import { dropMap, mapOf } from '../../../server/src/analysis/textMap';
import { createPythonParser, type Parser, type SyntaxNode } from '../../../server/src/analysis/treeSitter';
import { forEachAsciiName } from '../../../server/src/analysis/writtenNames';
import { pythonFiles, py, REPO } from './helpers';

const NOT_NAMES = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);

/** Every shape the text settles, and the ones beside it that it must leave to the tree. */
const SHAPES = py`
  import json
  from pathlib import Path

  reg = set()
  box = {"k": a, **more}
  r = reg
  x: int = 5
  first = second = [a, b][0]
  total += a
  reg.add(a)
  reg . add (b)
  reg.add(a if c else d, *rest, key=e, **kw)
  reg.add(f(a), g[a], h.a, a + 1, not a, lambda z: a, (a), (a, b), [a for a in b])
  print(a, [b, {c: d}], key=e)
  fns[0](a)
  make()(a)
  "".join(a)
  (reg).add(a)
  [a].extend(b)
  reg.add(
      a,  # a comment
      f"{json.dumps(b)} {c}",
  )
  value = json.dumps(a, indent=2) \\
      or b
  held = (reg.  # a method on the next line
      add(a))
  called = (make  # a callee on the line above
      (a))
  f = lambda k=v: reg.add(k)
  if (y := a):
      reg.add(y)
  for t in tasks:
      reg.add(t)
  with open(p) as handle:
      data = handle.read()
  while a and b:
      reg.add(a or b)

  @app.command(name=a)
  def step(path, items=b, *args, verbose: bool = c, **kw) -> Path:
      data = json.loads(Path(path).read_text())
      data.setdefault("seen", []).append(items)
      result = {"path": str(path), "items": [x for x in items if x]}
      return json.dumps(result, indent=2)

  class Registry(Base, metaclass=Meta):
      items: list = []

      def add(self, t):
          self.items.append(t)
          registry[t.name] = t
`;

/** `(name, holders)` for each name of each statement that something may keep, asked of the tree alone. */
function byTree(root: SyntaxNode, text: string, starts: number[]): string[] {
  const out: string[] = [];
  starts.forEach((start, i) => {
    forEachAsciiName(text, { start, end: starts[i + 1] ?? text.length }, (name, at) => {
      if (NOT_NAMES.has(name) || /^\d/.test(name)) return;
      const into = keptIn(root, at, at + name.length);
      if (into !== null) out.push(`${name} -> ${into?.join(',') ?? 'anywhere'}`);
    });
  });
  return out;
}

/** The same, through forEachKept with the layout's map of the text; and how many names it asked the tree about. */
function byText(root: SyntaxNode, text: string, starts: number[]): { kept: string[]; asked: number } {
  const out: string[] = [];
  let asked = 0;
  const counting = new Proxy(root, {
    get(target, key) {
      if (key === 'descendantForIndex') asked++;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  starts.forEach((start, i) => {
    forEachKept(counting, text, { start, end: starts[i + 1] ?? text.length }, (name, into) =>
      out.push(`${name} -> ${into?.join(',') ?? 'anywhere'}`),
    );
  });
  return { kept: out, asked };
}

function compare(parser: Parser, text: string, where: string): { names: number; asked: number } | undefined {
  const tree = parser.parse(text)!;
  try {
    if (tree.rootNode.hasError) return undefined;
    dropMap();
    const starts = moduleStatementStarts(text);
    if (!starts || !mapOf(text)) return undefined;
    const { kept, asked } = byText(tree.rootNode, text, starts);
    assert.deepEqual(kept, byTree(tree.rootNode, text, starts), where);
    let names = 0;
    forEachAsciiName(text, { start: 0, end: text.length }, () => names++);
    return { names, asked };
  } finally {
    dropMap();
    tree.delete();
  }
}

describe('what each mention puts into what, settled from the text where it can be', () => {
  it("gives keptIn's answer for every shape, and leaves to the tree what the text cannot settle", async () => {
    const parser = await createPythonParser();
    try {
      const counts = compare(parser, SHAPES, 'shapes');
      assert.ok(counts, 'the shapes parse without errors and are mapped');
      assert.ok(counts.asked < counts.names / 2, `asked the tree about ${counts.asked} of ${counts.names} names`);
      // Without the map (a text not mapped), every name is asked of the tree, with the same answers.
      const tree = parser.parse(SHAPES)!;
      try {
        dropMap();
        const starts = moduleStatementStarts(SHAPES)!;
        dropMap();
        const { kept, asked } = byText(tree.rootNode, SHAPES, starts);
        const named = kept.filter((k) => {
          const name = k.slice(0, k.indexOf(' '));
          return !NOT_NAMES.has(name) && !/^\d/.test(name);
        });
        assert.deepEqual(named, byTree(tree.rootNode, SHAPES, starts));
        assert.ok(asked >= counts.names - 40, `unmapped: asked about ${asked} names`);
      } finally {
        tree.delete();
      }
    } finally {
      parser.delete();
    }
  });

  it("gives keptIn's answer on every Python file of the repository", async () => {
    const parser = await createPythonParser();
    let compared = 0;
    try {
      for (const path of pythonFiles(REPO)) if (compare(parser, readFileSync(path, 'utf8'), path)) compared++;
    } finally {
      parser.delete();
    }
    assert.ok(compared > 50, `compared ${compared} files`);
  });
});
