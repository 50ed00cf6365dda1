/**
 * Closed files' trees freed right after their parse (moduleTree.ts, read
 * again when an extraction asks for nodes) give the same index as trees
 * kept through the extraction, and the policy that chooses between the two
 * (treeKeeping.ts) follows what the recent files asked.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Analyzer, type FileContent } from '../../../server/src/analysis/analyzer';
import { ModuleTree } from '../../../server/src/analysis/moduleTree';
import { RecentTreeUse, type TreeKeeping } from '../../../server/src/analysis/treeKeeping';
import { createPythonParser, type Tree } from '../../../server/src/analysis/treeSitter';
import { REPO, pythonFiles } from './helpers';

/** A fixed choice, counting the files whose extraction asked for nodes. */
function fixed(keep: boolean): TreeKeeping & { asked: number; extracted: number } {
  return {
    asked: 0,
    extracted: 0,
    keepTrees: () => keep,
    noteExtracted(asked) {
      this.extracted++;
      if (asked) this.asked++;
    },
  };
}

async function indexed(contents: [string, FileContent][], treeKeeping: TreeKeeping) {
  const a = await Analyzer.create({ roots: [REPO], treeKeeping });
  // The server's start-up batches: several parse batches each.
  for (let i = 0; i < contents.length; i += 256) a.setFiles(contents.slice(i, i + 256));
  const perFile = [...a.workspace.paths()]
    .sort()
    .map((p) => ({ path: p, facts: a.workspace.facts(p), problems: a.workspace.problems(p) }));
  const index = { ...a.workspace.index(), version: 0 };
  a.dispose();
  return { perFile, index };
}

describe('trees freed at their parse', () => {
  test("the repository's own modules give the same facts, problems and index whether their trees are freed or kept", async () => {
    // Real modules (the runtime's library code, the tests' fixtures, broken files among them, the examples):
    // many of their extractions ask the tree for nodes, which a freed tree answers by parsing the text again.
    const contents: [string, FileContent][] = pythonFiles(REPO).map((p) => [p, readFileSync(p)]);
    assert.ok(contents.length > 100, `${contents.length} Python files`);
    const freeing = fixed(false);
    const keeping = fixed(true);
    const freed = await indexed(contents, freeing);
    const kept = await indexed(contents, keeping);
    assert.equal(freed.perFile.length, kept.perFile.length);
    assert.deepEqual(freed.perFile, kept.perFile);
    assert.deepEqual(freed.index, kept.index);
    assert.ok(freed.index.tasks.length > 0 && freed.perFile.some((f) => f.problems.length > 0));
    // Both paths ran: files whose extraction read only the text, and files parsed again for their nodes.
    assert.equal(freeing.extracted, keeping.extracted);
    assert.ok(
      freeing.asked >= 10 && freeing.asked < freeing.extracted,
      `${freeing.asked} of ${freeing.extracted} asked`,
    );
    assert.equal(freeing.asked, keeping.asked);
  });
});

describe('module trees', () => {
  const text = 'import os\n\nN = 1 + 2\n\n# a comment\ndef f():\n    return N\n';

  async function parsed(source: string): Promise<{ tree: Tree; parseAgain: () => Tree; again: () => number }> {
    const parser = await createPythonParser();
    let again = 0;
    return {
      tree: parser.parse(source)!,
      parseAgain: () => {
        again++;
        return parser.parse(source)!;
      },
      again: () => again,
    };
  }

  test('freed at once, it keeps its counts and parses again only when asked for nodes', async () => {
    const { tree, parseAgain, again } = await parsed(text);
    const count = tree.rootNode.namedChildCount;
    const module = ModuleTree.owning(tree, true, parseAgain);
    assert.equal(module.hasError, false);
    assert.equal(module.namedChildCount, count);
    assert.equal(again(), 0);
    assert.equal(module.asked, false);
    assert.equal(module.descendantForIndex(text.indexOf('# a'), text.indexOf('# a') + 1)?.type, 'comment');
    assert.equal(module.namedChildren.length, count);
    assert.equal(again(), 1, 'parsed again once, however many nodes are read');
    assert.equal(module.asked, true);
    module.release();
    assert.equal(module.namedChildCount, count, 'the counts outlive the tree');
  });

  test('a tree with errors is kept however it is handed over: its readers walk it', async () => {
    const broken = 'def f(:\n    pass\n';
    const { tree, parseAgain, again } = await parsed(broken);
    const module = ModuleTree.owning(tree, true, parseAgain);
    assert.equal(module.hasError, true);
    assert.ok(module.namedChildren.length > 0);
    assert.equal(again(), 0);
    module.release();
  });

  test('a borrowed tree is left to its owner: release does not free it, and no second parse is possible', async () => {
    const { tree } = await parsed(text);
    const module = ModuleTree.borrowing(tree);
    assert.equal(module.descendantForIndex(0, 6)?.type, 'import');
    module.release();
    assert.equal(tree.rootNode.namedChildCount, module.namedChildCount, "the owner's tree is still readable");
    assert.throws(() => module.namedChildren, /read after its release/);
    tree.delete();
  });
});

describe('the policy', () => {
  test('keeps the first files, frees while few recent bytes asked, keeps after a large module asks', () => {
    const policy = new RecentTreeUse();
    for (let i = 0; i < 16; i++) {
      assert.equal(policy.keepTrees(), true, `file ${i}: the first files are kept`);
      policy.noteExtracted(false, 900);
    }
    assert.equal(policy.keepTrees(), false, 'sixteen files read from their text alone');
    for (let i = 0; i < 100; i++) policy.noteExtracted(false, 900);
    policy.noteExtracted(true, 900);
    assert.equal(policy.keepTrees(), false, 'one small file that asked is about 1/32 of the recent bytes');
    policy.noteExtracted(true, 40_000);
    assert.equal(policy.keepTrees(), true, 'a large module that asked');
    let files = 0;
    while (policy.keepTrees()) {
      policy.noteExtracted(false, 900);
      files++;
    }
    // The large module's share decays by 1/32 a file: about a hundred small files later it is under 1/20.
    assert.ok(files > 50 && files < 200, `${files} files`);
  });

  test('a workspace where a third of the bytes ask keeps its trees', () => {
    const policy = new RecentTreeUse();
    const kept: boolean[] = [];
    for (let i = 0; i < 300; i++) {
      kept.push(policy.keepTrees());
      policy.noteExtracted(i % 3 === 0, 3000);
    }
    assert.deepEqual(new Set(kept), new Set([true]));
  });
});
