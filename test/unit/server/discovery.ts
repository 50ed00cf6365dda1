/**
 * The bundled runtime's discovery (`python3 -m hud_studio.discover`), run in
 * the real python3: what a module holds once it has run, to compare the
 * static index with.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IndexedTask } from '../../../common/lspMessages';
import { pathToUri } from '../../../server/src/analysis/paths';
import { ENV_HEADER, FREE_AT_PARSE, py, workspace } from './helpers';

const RUNTIME = join(__dirname, '..', '..', '..', 'runtime', 'python');

export interface DiscoveryReport {
  tasks: { ref: string; env: string; id: string; verifier: { id: string } | null }[];
  error: { message: string } | null;
}

/**
 * Discovery of the module at `path`, run from `cwd` (its imports resolve from there); `packages`: a folder
 * of third-party packages the module imports, put after the runtime on the path.
 */
export function discoverFile(path: string, cwd: string, packages?: string): DiscoveryReport {
  const r = spawnSync('python3', ['-m', 'hud_studio.discover', path, '--json'], {
    cwd,
    env: { ...process.env, PYTHONPATH: packages ? `${RUNTIME}:${packages}` : RUNTIME },
    encoding: 'utf8',
  });
  assert.ok(r.stdout.trim(), `discovery printed nothing for ${path}: ${r.stderr}`);
  return JSON.parse(r.stdout) as DiscoveryReport;
}

/** Discovery of `source` written out as env.py in a folder of its own. */
export function discover(source: string): DiscoveryReport {
  const dir = mkdtempSync(join(tmpdir(), 'hud-discover-'));
  try {
    writeFileSync(join(dir, 'env.py'), source);
    return discoverFile('env.py', dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A task as both sides can name it: reference, template id and verifier template id. */
export interface Row {
  ref: string;
  templateId: string | undefined;
  verifier: string | null;
}

/** What discovery finds in `source`, which must import. */
export function discovered(source: string): Row[] {
  const report = discover(source);
  assert.equal(report.error, null);
  return rowsOf(report);
}

/** A task of the index as a row: its reference within its file is its label (`task`, `suite[0]`). */
export function indexRowOf(t: IndexedTask): Row {
  return { ref: t.label, templateId: t.templateId, verifier: t.verifier?.templateId ?? null };
}

export function rowsOf(report: DiscoveryReport): Row[] {
  return report.tasks.map((t) => ({ ref: t.ref, templateId: t.id, verifier: t.verifier?.id ?? null }));
}

/** Why `source` fails to import under the runtime. */
export function runtimeError(source: string): string {
  const report = discover(source);
  assert.notEqual(report.error, null, 'the runtime imports the module');
  return report.error!.message;
}

export const byRef = (rows: Row[]): Row[] => [...rows].sort((a, b) => a.ref.localeCompare(b.ref));

/** An environment with an actor template `solve(level)` and two verifiers, `check` and `audit(expected)`. */
export const VERIFIABLE_ENV =
  ENV_HEADER +
  py`

    @env.template()
    async def solve(level: int):
        yield "go"
        yield {"score": 1.0, "answer": "x"}


    @env.template()
    async def check(expected: str):
        r = yield ""
        yield 1.0 if r["answer"] == expected else 0.0


    @env.template()
    async def audit(expected: str):
        r = yield ""
        yield 1.0 if r["answer"] == expected else 0.0

  `;

/** The static index of `source` as env.py: its tasks as rows, their lines, its problems. */
export async function indexed(source: string) {
  const [kept, freed] = await Promise.all([
    indexedWith(source, {}),
    indexedWith(source, { treeKeeping: FREE_AT_PARSE }),
  ]);
  // A file's tree freed at its parse and parsed again when asked for nodes gives the same index (moduleTree.ts).
  assert.deepEqual(freed, kept, source);
  return kept;
}

async function indexedWith(source: string, options: Parameters<typeof workspace>[2]) {
  const ws = await workspace({ 'env.py': source }, [], options);
  const tasks = ws.analyzer.workspace.index().tasks;
  const found = {
    rows: tasks.map(indexRowOf),
    lines: Object.fromEntries(tasks.map((t) => [t.label, t.range.start.line])),
    problems: ws.problems('env.py'),
  };
  ws.analyzer.dispose();
  return found;
}

/** How many elements (`name[0]`, `name[1]`, ...) of each list in `names` the rows hold. */
export function elementCounts(rows: Row[], names: string[]): number[] {
  return names.map((name) => rows.filter((r) => r.ref.startsWith(`${name}[`)).length);
}

/** The index's tasks as sorted `[ref, template id, verifier id]` triples, for asserting exact lists. */
export function taskTriples(found: { rows: Row[] }): (string | null | undefined)[][] {
  return found.rows.map((r) => [r.ref, r.templateId, r.verifier]).sort();
}

/** Asserts that the index lists no task of `source` and says nothing about it: what it cannot follow. */
export async function indexesNothing(source: string): Promise<void> {
  const found = await indexed(source);
  assert.deepEqual(found.rows, [], source);
  assert.deepEqual(found.problems, [], source);
}

/** The index of `source`, after asserting that it lists what discovery finds. */
export async function agrees(source: string): Promise<Awaited<ReturnType<typeof indexed>>> {
  const found = await indexed(source);
  assert.deepEqual(byRef(found.rows), byRef(discovered(source)));
  return found;
}

/**
 * Asserts that the index of `source` lists exactly `refs` (sorted), each as discovery finds it, and reports
 * nothing: where only running the module tells some tasks' verifiers, it lists fewer, never a wrong one.
 */
export async function listsOnly(source: string, refs: string[]): Promise<void> {
  const found = await indexed(source);
  assert.deepEqual(found.rows.map((r) => r.ref).sort(), refs, source);
  const report = discover(source);
  assert.equal(report.error, null, source);
  for (const row of found.rows)
    assert.deepEqual(
      row,
      rowsOf(report).find((r) => r.ref === row.ref),
      source,
    );
  assert.deepEqual(found.problems, [], source);
}

/** A workspace of several modules, indexed and written to disk, as `inModules` hands it to a test. */
export interface Modules {
  ws: Awaited<ReturnType<typeof workspace>>;
  /** The index's tasks of the module under test, sorted by reference. */
  rows: () => Row[];
  /** What discovery finds in the module under test as the files on disk stand, sorted by reference. */
  discovered: () => Row[];
  /** Changes a module in the index and on disk alike. */
  edit: (rel: string, text: string) => void;
}

/**
 * Runs `body` on `files` (relative paths to texts), indexed as a workspace and written to a folder of their
 * own, where discovery imports `file` as the runtime would; the folder goes away afterwards.
 */
export async function inModules(
  files: Record<string, string>,
  file: string,
  body: (m: Modules) => void | Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'hs-modules-'));
  try {
    for (const [rel, text] of Object.entries(files)) writeFileSync(join(dir, rel), text);
    const ws = await workspace(files);
    const uri = pathToUri(ws.path(file));
    await body({
      ws,
      rows: () =>
        byRef(
          ws.analyzer.workspace
            .index()
            .tasks.filter((t) => t.uri === uri)
            .map(indexRowOf),
        ),
      discovered: () => byRef(rowsOf(discoverFile(file, dir))),
      edit: (rel, text) => {
        ws.analyzer.setFile(ws.path(rel), text);
        writeFileSync(join(dir, rel), text);
      },
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
