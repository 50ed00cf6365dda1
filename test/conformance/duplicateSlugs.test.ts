/**
 * The index's slug problems against the real SDK: for each module, the
 * SDK's own loader of `hud eval` (Taskset.from_file) either gathers the
 * tasks or refuses a repeated slug, and the index reports a slug problem
 * exactly where the SDK refuses, except where the arguments' values are
 * not known statically (then it reports nothing, never a false alarm).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { indexed, VERIFIABLE_ENV } from '../unit/server/discovery';
import { py } from '../unit/server/helpers';
import { peerPythonPath } from './peer';

const SCRATCH = mkdtempSync(join(tmpdir(), 'hs-slugs-'));
after(() => rmSync(SCRATCH, { recursive: true, force: true }));

const ENV = VERIFIABLE_ENV.replace('from hud import Environment', 'from hud import Environment, Taskset');

/** `statically`: whether the index can know the verdict (every repeated slug made of literals or one object). */
const CASES: { body: string; statically: boolean }[] = [
  { body: py`task = solve(level=1)\nsuite = [task, solve(level=2)]`, statically: true },
  { body: py`a = b = solve(level=1)`, statically: true },
  { body: py`first = solve(3)\nsecond = solve(level=3)`, statically: true },
  { body: py`many = [check(expected="x") for _ in range(3)]`, statically: true },
  { body: py`ts = Taskset("dup", [solve(level=1), solve(level=1)])`, statically: true },
  { body: py`a = solve(level=1)\nb = solve(level=1.0)\nc = solve(level=True)`, statically: true },
  { body: py`_draft = solve(level=1)\nkept = solve(level=1)`, statically: true },
  { body: py`f = check(expected="1")\ng = audit(expected="1")`, statically: true },
  { body: py`levels = [solve(level=n) for n in (5, 6)]\nmore = [solve(level=n) for n in range(2)]`, statically: true },
  { body: py`LEVEL = 1\nd = solve(level=LEVEL)\ne = solve(level=LEVEL)`, statically: false },
  // A loop that sets verifiers leaves its target holding the last task; private, or deleted, it is no reference.
  {
    body: py`suite = [solve(level=1), solve(level=2)]\nfor t in suite:\n    t.verifier = check(expected="a")`,
    statically: true,
  },
  {
    body: py`suite = [solve(level=1), solve(level=2)]\nfor _t in suite:\n    _t.verifier = check(expected="a")`,
    statically: true,
  },
  {
    body: py`suite = [solve(level=1), solve(level=2)]\nfor t in suite:\n    t.verifier = check(expected="a")\ndel t`,
    statically: true,
  },
  // A loop that builds the list one task at a time: the name it binds holds the last one after it.
  {
    body: py`suite = []\nfor n in range(3):\n    t = solve(level=n)\n    t.verifier = check(expected=str(n))\n    suite.append(t)`,
    statically: true,
  },
  {
    body: py`suite = []\nfor n in range(3):\n    t = solve(level=n)\n    suite.append(t)\ndel t`,
    statically: true,
  },
  {
    body: py`suite = []\nfor n in range(3):\n    t = solve(level=n)\n    suite += [t, solve(level=7)]\ndel t`,
    statically: true,
  },
  // A function that makes a task: each call is a task of its own, with the arguments its body gives.
  { body: py`def make():\n    return solve(level=1)\n\nfirst = make()\nsecond = make()`, statically: true },
  { body: py`def make(n):\n    return solve(level=n)\n\nfirst = make(1)\nsecond = make(2)`, statically: true },
  { body: py`def make(n):\n    return solve(level=n)\n\nfirst = make(1)\nsecond = make(1)`, statically: false },
];

function sdkRefuses(dir: string): boolean {
  const r = spawnSync(
    'python3',
    [
      '-c',
      'from hud.eval.taskset import Taskset\ntry:\n    Taskset.from_file("env.py")\n    print("ok")\nexcept ValueError as e:\n    print("refused" if "duplicate task slugs" in str(e) else f"other: {e}")',
    ],
    { cwd: dir, env: { ...process.env, PYTHONPATH: peerPythonPath(), PYTHONDONTWRITEBYTECODE: '1' }, encoding: 'utf8' },
  );
  const verdict = r.stdout.trim().split('\n').at(-1);
  assert.ok(verdict === 'ok' || verdict === 'refused', `the SDK's loader said ${verdict}: ${r.stderr}`);
  return verdict === 'refused';
}

test("the index's slug problems are where the real SDK's loader refuses a repeated slug", async () => {
  let refused = 0;
  for (const [i, { body, statically }] of CASES.entries()) {
    const source = `${ENV}${body}\n`;
    const dir = join(SCRATCH, `m${i}`);
    mkdirSync(dir);
    writeFileSync(join(dir, 'env.py'), source);
    const sdk = sdkRefuses(dir);
    const { problems } = await indexed(source);
    const index = problems.some((p) => p.code === 'task-duplicate-slug' || p.code === 'taskset-duplicate-slug');
    if (sdk) refused++;
    if (statically) assert.equal(index, sdk, `${body}: the SDK ${sdk ? 'refuses' : 'accepts'} it`);
    else assert.equal(index, false, `${body}: values not known statically, nothing is claimed`);
  }
  assert.ok(refused >= 5, `the SDK refused only ${refused} of the modules`);
});
