/**
 * The environments the HUD SDK's own documentation writes (every Python
 * block of the peer's Markdown that makes an Environment with templates):
 * where the real SDK can import one, the tasks its taskset scan collects are
 * the tasks the bundled runtime's discovery finds, and the static index
 * lists those same tasks by reference, template and verifier. This is where
 * a user's first environment comes from (the quickstart), so the editor must
 * show its tasks.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, test } from 'node:test';
import { Analyzer } from '../../server/src/analysis/analyzer';
import { listIndexableFiles, readFiles } from '../../server/src/analysis/scan';
import { byRef, discoverFile, indexRowOf, rowsOf } from '../unit/server/discovery';
import { peerPythonPath, peerRoot } from './peer';

const SCRATCH = mkdtempSync(join(tmpdir(), 'hs-docs-examples-'));
after(() => rmSync(SCRATCH, { recursive: true, force: true }));

/** Python blocks of the SDK's Markdown that define an environment with templates. */
function docExamples(): { source: string; code: string }[] {
  const out: { source: string; code: string }[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.mdx?$/.test(e.name))
        for (const m of readFileSync(p, 'utf8').matchAll(/```python[^\n]*\n([\s\S]*?)```/g)) {
          const code = m[1]!;
          if (code.includes('Environment(') && code.includes('.template')) out.push({ source: p, code });
        }
    }
  };
  walk(join(peerRoot(), 'src'));
  return out;
}

// The SDK's own scan (Taskset._scan_tasks: module-level Tasks, lists, tuples and Tasksets), as (env, id, verifier).
const SDK_SCAN = `
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("env", sys.argv[1])
module = importlib.util.module_from_spec(spec)
sys.modules["env"] = module
try:
    spec.loader.exec_module(module)
except BaseException as e:
    print(json.dumps({"error": f"{type(e).__name__}: {e}"}))
    sys.exit(0)
from hud.eval.taskset import Taskset
name = lambda env: env if isinstance(env, str) else getattr(env, "name", None)
print(json.dumps({"tasks": [[name(t.env), t.id, t.verifier.id if t.verifier else None] for t in Taskset._scan_tasks(module)]}))
`;

function sdkScan(file: string, cwd: string): { tasks?: [string, string, string | null][]; error?: string } {
  const r = spawnSync('python3', ['-c', SDK_SCAN, file], {
    cwd,
    env: { ...process.env, PYTHONPATH: peerPythonPath(), PYTHONDONTWRITEBYTECODE: '1' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.ok(r.stdout.trim(), `the SDK's scan printed nothing for ${file}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as ReturnType<typeof sdkScan>;
}

test("the index lists the tasks of every SDK docs example that the real SDK imports, as the SDK's scan finds them", async () => {
  const examples = docExamples();
  assert.ok(examples.length >= 10, `only ${examples.length} examples found in the SDK's docs`);
  let compared = 0;
  let tasks = 0;
  let uncovered = 0;
  for (const [i, { source, code }] of examples.entries()) {
    const dir = join(SCRATCH, `e${i}`);
    mkdirSync(dir);
    writeFileSync(join(dir, 'env.py'), code);
    const sdk = sdkScan('env.py', dir);
    if (sdk.error) continue; // needs a package these machines lack (mcp, a simulator) or is a fragment
    const where = relative(peerRoot(), source);
    // The peer's stand-ins for the packages an example imports (mcp.types), which a user would have installed.
    const report = discoverFile('env.py', dir, join(peerRoot(), 'shim', 'stubs'));
    // Robot simulations (env.gym) are documented as not covered: the error must say so, and what serves them.
    if (report.error && /\benv\.gym\(/.test(code)) {
      assert.match(report.error.message, /not covered by HUD Studio's bundled runtime.*--sdk auto/, where);
      uncovered++;
      continue;
    }
    assert.equal(report.error, null, `${where}: the SDK imports it, the bundled runtime must too`);
    const found = report.tasks.map((t) => [t.env, t.id, t.verifier?.id ?? null]);
    const sorted = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort();
    assert.deepEqual(sorted(found), sorted(sdk.tasks!), `${where}: discovery against the SDK's scan`);
    const analyzer = await Analyzer.create({ roots: [dir] });
    try {
      analyzer.setFiles(await readFiles(await listIndexableFiles([dir])));
      const indexed = analyzer.workspace.index().tasks.map(indexRowOf);
      assert.deepEqual(byRef(indexed), byRef(rowsOf(report)), `${where}: the index against discovery`);
      const errors = analyzer.workspace.problems(join(dir, 'env.py')).filter((p) => p.severity === 'error');
      assert.deepEqual(errors, [], `${where}: an example the SDK imports has no error`);
    } finally {
      analyzer.dispose();
    }
    compared++;
    tasks += report.tasks.length;
  }
  // The quickstart's three comprehension tasks among them (and its copies in the README and the skill).
  assert.ok(compared >= 8, `only ${compared} examples imported under the SDK`);
  assert.ok(tasks >= 9, `only ${tasks} tasks in the examples that imported`);
  assert.ok(uncovered <= 3, `${uncovered} examples fell back on the documented robot gap`);
});
