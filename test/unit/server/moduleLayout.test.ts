import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { moduleStatementStarts } from '../../../server/src/analysis/moduleLayout';
import { pythonFiles, REPO } from './helpers';
import { createPythonParser, type Parser } from '../../../server/src/analysis/treeSitter';

/** Where the module's named children start, as tree-sitter parses `text`; undefined for a file with errors. */
function treeStarts(parser: Parser, text: string): { starts: number[]; count: number } | undefined {
  const tree = parser.parse(text)!;
  try {
    if (tree.rootNode.hasError) return undefined;
    return { starts: tree.rootNode.namedChildren.map((n) => n!.startIndex), count: tree.rootNode.namedChildCount };
  } finally {
    tree.delete();
  }
}

/** Modules whose layout has a trap: each is read, and read as the tree says. */
const LAYOUTS: Record<string, string> = {
  'decorators, with comments and blank lines between them and the def': [
    '@env.template("a")',
    '# a comment',
    '',
    '@other',
    'async def a():',
    '    yield 1',
    '# after',
    'x = 1',
  ].join('\n'),
  'simple statements joined by `;`, a trailing `;`, trailing comments':
    'a = 1; b = f(x); c = 3;\nd = 4  # note\ne = 5; # c\n',
  'a `;` inside a compound statement is its body`s': 'if x: a = 1; b = 2\nfor i in y: f(i); g(i)\nz = 0\n',
  'clauses in column 0 continue the statement, and comments before them stay in it': [
    'try:',
    '    import a',
    '# no a here',
    'except ImportError:',
    '    a = None',
    'else:',
    '    pass',
    'finally:',
    '    pass',
    'if a:',
    '    b = 1',
    'elif c:',
    '    b = 2',
    '#  still inside',
    'else:',
    '    b = 3',
  ].join('\n'),
  'a comment in column 0 inside a body stays there; after the body it is the module`s': [
    'def f():',
    '    x = 1',
    '# commented out:',
    '#   y = 2',
    '    return x',
    '',
    '# between',
    'class C:',
    '    def m(self):',
    '        pass',
    '# at the end',
  ].join('\n'),
  'an indented comment below a simple statement': 'x = 1\n    # indented\ny = 2\n',
  'brackets and backslashes carry lines over, column 0 included': [
    'suite = [',
    'solve(level=1),',
    '  solve(level=2),',
    ']',
    'total = 1 + \\',
    '2',
    'call(a,',
    '# a comment inside the call',
    'b)',
  ].join('\n'),
  'strings whose lines start in column 0': [
    '"""Module docstring.',
    '',
    'x = not code',
    '"""',
    "PROMPT = '''",
    'def not_code():',
    "'''",
    'y = "a \\" b"  # "quoted" comment',
  ].join('\n'),
  'f-strings, with strings of the other quote in their fields': [
    'a = f"{d[\'k\']} and {x!r:>{width}}"',
    'b = f\'{"}"}\' ; c = rf"{{not a field}}"',
    'd = f"""',
    '{e["k"]}',
    '"""',
  ].join('\n'),
  'Windows line ends': 'import hud\r\nx = 1; y = 2\r\n\r\ndef f():\r\n    pass\r\n# end\r\n',
  'match as a statement and as a name': 'match = 1\nmatch command:\n    case "go":\n        pass\nx = match\n',
  'async, with, while, class and non-ASCII names': [
    'async def a():',
    '    pass',
    'with open(p) as f:',
    '    pass',
    'while False:',
    '    pass',
    'café = 1',
    '_private = 2',
  ].join('\n'),
};

/** Pieces of modules for the differential test: each alone, and the traps where they meet. */
const PIECES = [
  'x = 1',
  'y = f(a,\nb)',
  'from a import (b,\n c)',
  '@dec',
  '@env.template("t")  # c',
  'def f():\n    pass',
  'async def g():\n    yield 1',
  'class C:\n    x = 1',
  'class D: pass; x = 1',
  'if a:\n    b = 1',
  'if a: b; c',
  'else:\n    c = 2',
  'elif d:\n    e = 3',
  'try:\n    pass',
  'except E:\n    pass',
  'finally:\n    pass',
  'for i in r:\n    pass',
  'while x: a; b',
  'with o as p:\n    pass',
  'match v:\n    case 1:\n        pass',
  'match = 2',
  '# comment',
  '    # indented comment',
  'def h():\n    x = 1\n  # shallow comment\n    y = 2',
  'if x:\n    pass\n# c\nelse:\n    pass',
  'a = 1; b = 2',
  'a = 1;',
  'c = 3  # trailing; not a statement',
  's = """doc\nx = 1\n"""',
  "t = '''\n# not a comment\n'''",
  'u = "a\\"b # c"',
  'v = f"{w[\'k\']} {x!r:>{n}}"',
  'w = f"""{d["k"]}\n"""',
  'z = 1 + \\\n2',
  'q = [\n1,\n# c\n2,\n]',
  '',
  '\f',
  '\v',
  'café = 1',
  '"docstring"',
  '(a, b) = 1, 2',
  'type X = int',
];

describe('module layout read from the text', () => {
  it('finds every module-level statement where the tree does, for each layout with a trap', async () => {
    const parser = await createPythonParser();
    try {
      for (const [name, text] of Object.entries(LAYOUTS)) {
        const tree = treeStarts(parser, text);
        assert.ok(tree, `${name}: the example must parse without errors`);
        assert.deepEqual(moduleStatementStarts(text), tree.starts, name);
      }
    } finally {
      parser.delete();
    }
  });

  it('gives no answer where its reading is not sure', () => {
    // Python 3.12 lets a field hold the f-string's own quote.
    assert.equal(moduleStatementStarts('a = f"{d["k"]}"\nb = 1\n'), undefined);
    // A lone carriage return ends a line for Python.
    assert.equal(moduleStatementStarts('a = 1\rb = 2\n'), undefined);
    // `match` with a `;` on its line may be either kind of statement.
    assert.equal(moduleStatementStarts('match x: pass; y\n'), undefined);
    assert.equal(moduleStatementStarts('a = "never closed\n'), undefined);
  });

  it('never has the count of the tree with other starts, over modules made of random pieces', async () => {
    // The index trusts the reading whenever its count is the tree's: this is the property it relies on.
    const parser = await createPythonParser();
    let seed = 20261203;
    const random = () => (seed = (seed * 48271) % 0x7fffffff) / 0x7fffffff;
    let read = 0;
    try {
      for (let k = 0; k < 3000; k++) {
        const pieces = Array.from(
          { length: 1 + Math.floor(random() * 7) },
          () => PIECES[Math.floor(random() * PIECES.length)],
        );
        let text = pieces.join(random() < 0.2 ? '\r\n' : '\n') + (random() < 0.5 ? '\n' : '');
        if (random() < 0.05) text = '\uFEFF' + text;
        const tree = treeStarts(parser, text);
        const starts = moduleStatementStarts(text);
        if (!tree || !starts || starts.length !== tree.count) continue;
        assert.deepEqual(starts, tree.starts, JSON.stringify(text));
        read++;
      }
    } finally {
      parser.delete();
    }
    assert.ok(read > 1000, `only ${read} of the 3000 modules were read`);
  });

  it('agrees with the tree on every Python file of the repository, or counts differently from it', async () => {
    // The index uses the reading only when its count is the tree's (pythonFacts.ts), so the two must never
    // have the same count and different starts; and the reading must serve nearly every file, or it is dead weight.
    const parser = await createPythonParser();
    let read = 0;
    let files = 0;
    try {
      for (const path of pythonFiles(REPO)) {
        const text = readFileSync(path, 'utf8');
        const tree = treeStarts(parser, text);
        if (!tree) continue;
        files++;
        const starts = moduleStatementStarts(text);
        if (!starts || starts.length !== tree.count) continue;
        assert.deepEqual(starts, tree.starts, path);
        read++;
      }
    } finally {
      parser.delete();
    }
    assert.ok(files > 100, `only ${files} Python files found`);
    assert.ok(read >= files * 0.95, `the layout served ${read} of ${files} files`);
  });
});
