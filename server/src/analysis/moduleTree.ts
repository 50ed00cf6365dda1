/**
 * A module's syntax tree as the extraction reads it (pythonFacts.ts): the
 * four things its readers ask of the root node. Most extractions ask only
 * whether the tree has errors and how many statements it holds; the rest
 * is read from the text. So a closed file's tree may be freed right after
 * its parse, while its nodes are still in the CPU's caches, with those two
 * answers kept: freeing it after a batch's extraction instead cost twice
 * as much (bench/index/README.md, "Trees freed at their parse"). When the
 * extraction does ask for a node, the same text is parsed again, which
 * gives the same tree. Whether to free at once is treeKeeping.ts's call.
 */
import type { SyntaxNode, Tree } from './treeSitter';

/** What the readers ask of a module's root node; a tree's own root node is one. */
export type ModuleRoot = Pick<SyntaxNode, 'hasError' | 'namedChildCount' | 'namedChildren' | 'descendantForIndex'>;

export class ModuleTree implements ModuleRoot {
  readonly hasError: boolean;
  readonly namedChildCount: number;
  /** The extraction asked for nodes (namedChildren, descendantForIndex), not only the two counts. */
  asked = false;
  private root: SyntaxNode | undefined;

  private constructor(
    root: SyntaxNode,
    /** The tree this object frees in release(); undefined for a tree its caller keeps and frees. */
    private owned: Tree | undefined,
    private readonly parseAgain: (() => Tree) | undefined,
  ) {
    this.hasError = root.hasError;
    this.namedChildCount = root.namedChildCount;
    this.root = root;
  }

  /** A tree whose caller keeps it (an open document's) and frees it. */
  static borrowing(tree: Tree): ModuleTree {
    return new ModuleTree(tree.rootNode, undefined, undefined);
  }

  /**
   * Takes `tree` over: with `freeNow`, frees it at once unless it has
   * errors (whose readers always walk it), and `parseAgain` gives the same
   * tree if the extraction asks for a node. release() frees what is held.
   */
  static owning(tree: Tree, freeNow: boolean, parseAgain: () => Tree): ModuleTree {
    const module = new ModuleTree(tree.rootNode, tree, parseAgain);
    if (freeNow && !module.hasError) module.release();
    return module;
  }

  get namedChildren(): (SyntaxNode | null)[] {
    return this.node().namedChildren;
  }

  descendantForIndex(start: number, end?: number): SyntaxNode | null {
    return this.node().descendantForIndex(start, end);
  }

  /** Frees the tree this object holds, if it owns one; the two counts stay readable. */
  release(): void {
    this.owned?.delete();
    this.owned = undefined;
    this.root = undefined;
  }

  private node(): SyntaxNode {
    this.asked = true;
    if (this.root) return this.root;
    if (!this.parseAgain) throw new Error('the module tree was read after its release');
    this.owned = this.parseAgain();
    this.root = this.owned.rootNode;
    return this.root;
  }
}
