/**
 * The check that cuts the agent's links before grading
 * (providers/turnEndCheck.ts), run with the host's python3 over a
 * temporary workspace: links that lead nowhere or through /proc go, links
 * to what exists stay, folders get their modes back, and the report lists
 * what went. Whether the agent could read a target is the kernel's answer
 * for the agent's user; the Docker and local attacks test that
 * (test/integration/security/links.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  linkSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { seededRandom } from '../../support/random';
import {
  TURN_END_CHECK_SCRIPT,
  reachableWhy,
  shadowingWhy,
  turnEndCheckArgs,
  turnEndCheckOf,
  turnEndWarning,
  unlistedCheckArgs,
  withUnlisted,
  type TurnEndCheck,
} from '../../../client/src/engine/providers/turnEndCheck';
import { HudStudioError } from '../../../client/src/engine/errors';

/** The script run with the host's python3 on `args` (as `uid` when given), its report parsed. */
function runScript(args: string[], roots: string[], uid?: number): TurnEndCheck {
  const r = spawnSync('python3', ['-I', '-S', '-c', TURN_END_CHECK_SCRIPT, ...args], {
    encoding: 'utf8',
    cwd: '/',
    ...(uid === undefined ? {} : { uid, gid: uid }),
  });
  return turnEndCheckOf({ exitCode: r.status, stdout: r.stdout, stderr: r.stderr, timedOut: false }, roots);
}

/** The check over `root`, with the links it cut named relative to it. */
function check(root: string): TurnEndCheck {
  const found = runScript([root], [root]);
  return {
    ...found,
    cut: found.cut.map((c) => ({ ...c, path: relative(root, c.path) })),
    split: found.split.map((p) => relative(root, p)),
  };
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function workspace(): string {
  return mkdtempSync(join(tmpdir(), 'hs-links-'));
}

test('links that lead nowhere, through /proc, in a loop or through a file are cut; the rest stay', () => {
  const ws = workspace();
  try {
    writeFileSync(join(ws, 'note'), 'hi');
    mkdirSync(join(ws, 'sub'));
    const links: Record<string, string> = {
      // kept
      alias: 'note',
      up: 'sub/../note',
      folder: 'sub',
      tool: '/usr/bin/env',
      // cut
      dangling: 'missing/file',
      later: '/tmp/hs-links-not-there-yet/expected.txt',
      cwd: '/proc/self/cwd/etc/hostname',
      fd: '/dev/fd/0',
      viaProc: 'cwd',
      loopA: 'loopB',
      loopB: 'loopA',
      throughFile: 'note/x',
      'sub/deep': '../../../../../../../../proc/1/root/etc/hostname',
    };
    for (const [name, target] of Object.entries(links)) symlinkSync(target, join(ws, name));
    const { cut, count } = check(ws);
    const kept = ['alias', 'up', 'folder', 'tool'];
    for (const name of kept) assert.ok(isLink(join(ws, name)), `${name} is kept`);
    const gone = Object.keys(links).filter((n) => !kept.includes(n));
    for (const name of gone) assert.ok(!isLink(join(ws, name)), `${name} is cut`);
    assert.equal(count, gone.length);
    assert.deepEqual(cut.map((c) => c.path).sort(), [...gone].sort());
    assert.equal(cut.find((c) => c.path === 'cwd')?.target, '/proc/self/cwd/etc/hostname');
    assert.ok(existsSync(join(ws, 'note')), 'files are not touched');
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
});

test("a link of another user's (the server's, the image's) is not the agent's to cut", () => {
  const ws = workspace();
  try {
    symlinkSync('/proc/self/root', join(ws, 'theirs'));
    symlinkSync('/proc/self/root', join(ws, 'mine'));
    // Whoever runs the check stands for the agent; the server made the other link.
    const me = process.getuid?.() ?? 0;
    lchownSync(join(ws, 'theirs'), me + 1, me + 1);
    assert.deepEqual(
      check(ws).cut.map((c) => c.path),
      ['mine'],
    );
    assert.ok(isLink(join(ws, 'theirs')));
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
});

test('a folder the agent locked is opened for the cut and gets its mode back', () => {
  const ws = workspace();
  try {
    const locked = join(ws, 'locked');
    const hidden = join(ws, 'hidden');
    mkdirSync(locked);
    mkdirSync(hidden);
    symlinkSync('/proc/self/environ', join(locked, 'answer'));
    symlinkSync('nowhere', join(hidden, 'answer'));
    chmodSync(locked, 0o555);
    chmodSync(hidden, 0o000);
    const { count } = check(ws);
    assert.equal(count, 2);
    assert.equal(lstatSync(locked).mode & 0o777, 0o555);
    assert.equal(lstatSync(hidden).mode & 0o777, 0o000);
    chmodSync(hidden, 0o700);
    assert.ok(!isLink(join(locked, 'answer')) && !isLink(join(hidden, 'answer')));
  } finally {
    chmodSync(join(ws, 'hidden'), 0o700);
    rmSync(ws, { recursive: true, force: true });
  }
});

test("in a folder of someone else's that the agent may add names to, every link of the agent is cut, wherever it leads", () => {
  const ws = workspace();
  try {
    // A folder like /tmp: everyone writes, the sticky bit, someone else's. The grader writes there too, and
    // `expected.txt -> <the agent's answer>` would make it write the expected value into the answer.
    const me = process.getuid?.() ?? 0;
    const tmp = join(ws, 'tmp');
    mkdirSync(tmp);
    writeFileSync(join(ws, 'answer.txt'), '');
    symlinkSync(join(ws, 'answer.txt'), join(tmp, 'expected.txt'));
    mkdirSync(join(tmp, 'grading'));
    symlinkSync('../../answer.txt', join(tmp, 'grading', 'expected.txt'));
    symlinkSync(join(ws, 'answer.txt'), join(ws, 'alias'));
    const theirs = join(tmp, 'theirs');
    symlinkSync(join(ws, 'answer.txt'), theirs);
    lchownSync(theirs, me + 1, me + 1);
    chownSync(tmp, me + 1, me + 1);
    chmodSync(tmp, 0o1777);
    const { cut } = check(ws);
    assert.deepEqual(cut.map((c) => c.path).sort(), ['tmp/expected.txt', 'tmp/grading/expected.txt']);
    assert.ok(isLink(join(ws, 'alias')), 'a link to the same file outside the shared folder stays');
    assert.ok(isLink(theirs), "another user's link stays");
    // Without the sticky bit (the kernel's protected_symlinks covers none of these), or written by the agent's
    // group only, the folder is as shared: the grader's scratch file there is as easily the agent's link.
    const plant = (mode: number, uid: number, gid: number): number => {
      symlinkSync(join(ws, 'answer.txt'), join(tmp, 'expected.txt'));
      chownSync(tmp, uid, gid);
      chmodSync(tmp, mode);
      const { count } = check(ws);
      rmSync(join(tmp, 'expected.txt'), { force: true });
      return count;
    };
    assert.equal(plant(0o777, me + 1, me + 1), 1, 'everyone writes, not sticky');
    assert.equal(plant(0o2770, me + 1, me), 1, "the agent's group writes");
    // Not shared: only its owner writes, the group that writes is not the agent's, or the agent's own folder.
    assert.equal(plant(0o755, me + 1, me), 0);
    assert.equal(plant(0o775, me + 1, me + 1), 0);
    assert.equal(plant(0o1777, me, me), 0);
    // Others write, but the agent's group's bits apply to it, and they do not let it write.
    assert.equal(plant(0o757, me + 1, me), 0);
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
});

test("a file of the agent's in a shared folder with other names gets a copy per name there", () => {
  const ws = workspace();
  try {
    const me = process.getuid?.() ?? 0;
    const tmp = join(ws, 'tmp');
    mkdirSync(join(tmp, 'locked'), { recursive: true });
    writeFileSync(join(ws, 'answer.txt'), 'mine');
    linkSync(join(ws, 'answer.txt'), join(tmp, 'expected.txt'));
    linkSync(join(ws, 'answer.txt'), join(tmp, 'locked', 'third'));
    chmodSync(join(ws, 'answer.txt'), 0o200);
    utimesSync(join(ws, 'answer.txt'), 1_000_000, 2_000_000);
    chmodSync(join(tmp, 'locked'), 0o555);
    // An honest hard link outside the shared folder stays.
    writeFileSync(join(ws, 'data'), 'x');
    linkSync(join(ws, 'data'), join(ws, 'data-too'));
    writeFileSync(join(tmp, 'theirs'), 'server');
    linkSync(join(tmp, 'theirs'), join(tmp, 'theirs-too'));
    chownSync(join(tmp, 'theirs'), me + 1, me + 1);
    chownSync(tmp, me + 1, me + 1);
    chmodSync(tmp, 0o1777);
    const links = check(ws);
    assert.equal(links.count, 0);
    assert.deepEqual(links.split.sort(), ['tmp/expected.txt', 'tmp/locked/third']);
    const names = ['answer.txt', 'tmp/expected.txt', 'tmp/locked/third'].map((n) => join(ws, n));
    assert.equal(new Set(names.map((n) => lstatSync(n).ino)).size, 3, 'each name is a file of its own');
    for (const n of names) {
      const st = lstatSync(n);
      assert.equal(st.nlink, 1);
      assert.equal(st.mode & 0o7777, 0o200, 'the mode is kept, unreadable included');
      assert.equal(st.mtimeMs, 2_000_000_000);
      chmodSync(n, 0o600);
      assert.equal(readFileSync(n, 'utf8'), 'mine');
    }
    writeFileSync(join(tmp, 'expected.txt'), 'written by the grader');
    assert.equal(readFileSync(join(ws, 'answer.txt'), 'utf8'), 'mine', 'writing one name leaves the other');
    assert.equal(lstatSync(join(tmp, 'locked')).mode & 0o777, 0o555, "the folder's mode is given back");
    assert.deepEqual(readdirSync(join(tmp, 'locked')), ['third'], 'no copy is left behind');
    assert.equal(lstatSync(join(ws, 'data')).nlink, 2, 'a hard link in the workspace stays');
    assert.equal(lstatSync(join(tmp, 'theirs')).nlink, 2, "another user's file is not the agent's to copy");
    assert.match(turnEndWarning(links) ?? '', /^gave 2 files the agent had hard-linked .*: "[^"]+", "[^"]+" \(docs/);
    assert.equal(turnEndWarning(check(ws)), undefined, 'nothing is left to do');
  } finally {
    chmodSync(join(ws, 'tmp', 'locked'), 0o755);
    rmSync(ws, { recursive: true, force: true });
  }
});

/** The agent's user in the tests below: nobody, since root may write anywhere. */
const NOBODY = 65534;

/** `body` run on a fresh folder the agent's user may enter and list (mode 755), removed after. */
function asTheAgent(body: (base: string) => void): void {
  const base = workspace();
  try {
    chmodSync(base, 0o755);
    body(base);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

test('the folders where graders look programs up that the agent could change are reported', () =>
  asTheAgent((base) => {
    const dir = (rel: string, mode: number, uid = 0): string => {
      const path = join(base, rel);
      mkdirSync(path, { recursive: true });
      chownSync(path, uid, uid);
      chmodSync(path, mode);
      return path;
    };
    const own = dir('own/bin', 0o755, NOBODY);
    // Its own, though read-only: the owner may change the mode.
    const ownLocked = dir('own-locked', 0o555, NOBODY);
    const locked = dir('locked/bin', 0o755);
    const sticky = dir('sticky', 0o1777);
    const theirsInSticky = dir('sticky/bin', 0o755);
    dir('wide', 0o777);
    const renamable = dir('wide/bin', 0o755);
    const search = [
      own,
      ownLocked,
      locked,
      join(base, 'locked', 'missing'),
      theirsInSticky,
      join(sticky, 'missing'),
      renamable,
      join(own, 'missing', 'deeper'),
      join(base, 'own', 'missing'),
      'relative/bin',
      '',
      own,
    ];
    const { reachable } = runScript(turnEndCheckArgs([], search), [], NOBODY);
    // Relative entries, "" (the working folder) too, are the agent's when nobody says where the graders run.
    assert.deepEqual(reachable, [
      own,
      ownLocked,
      join(sticky, 'missing'),
      renamable,
      join(own, 'missing', 'deeper'),
      'relative/bin',
      '',
    ]);
    assert.equal(reachable.length, new Set(reachable).size, 'each folder once');
    const why = reachableWhy(reachable) ?? '';
    assert.match(why, /^the agent's user could put programs or modules of its own in "/);
    assert.match(
      why,
      /; relative entries where the graders look programs and modules up \("relative\/bin", "" in the image's PATH, .*; "" is the working folder\)/,
    );
    assert.equal(reachableWhy([]), undefined);
    // Where the graders run is known: relative entries are folders under it, judged as the others.
    const ran = (runIn: string): string[] =>
      runScript(turnEndCheckArgs([], ['bin', '', 'lib/../bin'], runIn), [], NOBODY).reachable;
    assert.deepEqual(ran(join(base, 'own')), [join(base, 'own', 'bin')]);
    assert.deepEqual(ran(own), [join(own, 'bin'), own]);
    assert.deepEqual(ran(locked), []);
  }));

test("the modules the agent left where the graders run, under the names of python3's own, are reported", () =>
  asTheAgent((base) => {
    const app = join(base, 'app');
    mkdirSync(join(app, 'email'), { recursive: true });
    mkdirSync(join(app, 'notes'));
    for (const name of [
      'json.py',
      'email/__init__.py',
      'csv.so',
      'helper.py',
      'os.py',
      'sys.py',
      'codecs.py',
      '2fast.py',
    ])
      writeFileSync(join(app, name), '');
    const shadows = (): string[] =>
      runScript(turnEndCheckArgs([], [], app), [], NOBODY).shadowing.map((s) => `${relative(app, s.path)}:${s.module}`);
    // Not the agent's: nothing it could have left there.
    assert.deepEqual(shadows(), []);
    chownSync(app, NOBODY, NOBODY);
    // A module of the standard library, a package and an extension do; a name of its own does not, nor one a
    // Python has before it reads a path (frozen os, built-in sys, codecs loaded at start), nor a non-name.
    assert.deepEqual(shadows(), ['csv.so:csv', 'email:email', 'json.py:json']);
    const why = shadowingWhy(
      [
        { path: '/app/json.py', module: 'json' },
        { path: '/app/csv.so', module: 'csv' },
      ],
      '/app',
    );
    assert.match(
      why ?? '',
      /^the agent left "\/app\/json\.py", "\/app\/csv\.so" in "\/app", where the graders run, .*`import json` would run the agent's code/,
    );
    assert.equal(shadowingWhy([], '/app'), undefined);
    // Without a folder to look in, nothing is reported.
    assert.deepEqual(runScript(turnEndCheckArgs([], []), [], NOBODY).shadowing, []);
  }));

test("folders of someone else's the agent may enter but not list are walked by root, judging as the agent", () =>
  asTheAgent((base) => {
    const answer = join(base, 'answer.txt');
    writeFileSync(answer, 'guess');
    chownSync(answer, NOBODY, NOBODY);
    // A drop folder (others may add names, not list them), and a folder others may only pass through, above one
    // of the agent's.
    const drop = join(base, 'drop');
    const inner = join(base, 'hidden', 'inner');
    mkdirSync(drop);
    mkdirSync(inner, { recursive: true });
    chownSync(inner, NOBODY, NOBODY);
    symlinkSync(answer, join(drop, 'expected.txt'));
    lchownSync(join(drop, 'expected.txt'), NOBODY, NOBODY);
    linkSync(answer, join(drop, 'hard'));
    symlinkSync(answer, join(drop, 'theirs'));
    symlinkSync('/etc/shadow', join(inner, 'secret'));
    lchownSync(join(inner, 'secret'), NOBODY, NOBODY);
    chmodSync(drop, 0o733);
    chmodSync(join(base, 'hidden'), 0o711);
    const first = runScript([base], [base], NOBODY);
    assert.deepEqual(first.unlisted.sort(), [drop, join(base, 'hidden')]);
    assert.equal(first.count + first.splitCount, 0, 'the agent cannot see in there');
    assert.equal(first.agent, `${NOBODY}:${NOBODY}`);
    const second = runScript(unlistedCheckArgs(first), first.unlisted);
    const both = withUnlisted(first, second);
    assert.deepEqual(both.cut.map((c) => c.path).sort(), [join(drop, 'expected.txt'), join(inner, 'secret')]);
    assert.deepEqual(both.split, [join(drop, 'hard')]);
    assert.deepEqual(both.unlisted, []);
    assert.ok(isLink(join(drop, 'theirs')), "root's own link stays");
    const copy = lstatSync(join(drop, 'hard'));
    assert.equal(copy.nlink, 1);
    assert.equal(copy.uid, NOBODY, "the copy is the agent's, as the file was");
    assert.equal(readFileSync(join(drop, 'hard'), 'utf8'), 'guess');
    assert.equal(lstatSync(answer).nlink, 1);
  }));

test('every link is cut but the report lists the first 50', () => {
  const ws = workspace();
  try {
    for (let i = 0; i < 120; i++) symlinkSync(`/proc/${i}`, join(ws, `l${i}`));
    const links = check(ws);
    assert.equal(links.count, 120);
    assert.equal(links.cut.length, 50);
    const warning = turnEndWarning(links) ?? '';
    assert.match(warning, /^removed 120 symlinks .* and 110 more \(docs\/security\.md/);
    const again = check(ws);
    assert.equal(again.count, 0, 'nothing is left to cut');
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
});

test("a link's name is reported exactly and quoted in the warning, so it cannot start a line", () => {
  const ws = workspace();
  try {
    const name = 'a\nreward 1.00\x1b[2K';
    symlinkSync('/proc/self/root', join(ws, name));
    const links = check(ws);
    assert.deepEqual(links.cut, [{ path: name, target: '/proc/self/root' }]);
    const warning = turnEndWarning(links) ?? '';
    assert.ok(!/[\n\x1b]/.test(warning), warning);
    assert.match(
      warning,
      /^removed 1 symlink the agent left .*: "a\\nreward 1\.00\\u001b\[2K" -> "\/proc\/self\/root" \(docs/,
    );
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
});

test('a check that could not finish fails, naming the workspace and why', () => {
  assert.throws(
    () =>
      turnEndCheckOf(
        {
          exitCode: 1,
          stdout: '{"cut": [], "count": 0, "failed": "/w/x: Permission denied"}\n',
          stderr: '',
          timedOut: false,
        },
        ['/w'],
      ),
    (err: unknown) =>
      err instanceof HudStudioError &&
      /links the agent left in \/w failed, so nothing was graded: \/w\/x: Permission denied/.test(err.message),
  );
  assert.throws(
    () => turnEndCheckOf({ exitCode: null, stdout: '', stderr: '', timedOut: true }, ['/w']),
    (err: unknown) => err instanceof HudStudioError && /nothing was graded: exit null/.test(err.message),
  );
});

/**
 * What the check should do, written from its rule: followed one step at a
 * time, a link must reach something that exists without passing through
 * /proc or looping (run as root here, everything that exists is readable).
 */
function leadsSomewhere(path: string): boolean {
  const todo = path.split('/').reverse();
  let at = '/';
  let hops = 0;
  while (todo.length) {
    const name = todo.pop()!;
    if (name === '' || name === '.') continue;
    if (name === '..') {
      at = dirname(at);
      continue;
    }
    const step = at === '/' ? `/${name}` : `${at}/${name}`;
    if (step === '/proc' || step.startsWith('/proc/')) return false;
    let link: boolean;
    try {
      link = lstatSync(step).isSymbolicLink();
    } catch {
      return false;
    }
    if (!link) {
      at = step;
      continue;
    }
    if (++hops > 40) return false;
    const target = readlinkSync(step);
    todo.push(...target.split('/').reverse());
    if (target.startsWith('/')) at = '/';
  }
  return true;
}

/** Every entry under `root`: its path, kind and, for folders, mode. */
function entries(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const st = lstatSync(path);
      if (st.isSymbolicLink()) out.set(path, `link ${readlinkSync(path)}`);
      else if (st.isDirectory()) {
        out.set(path, `folder ${(st.mode & 0o777).toString(8)}`);
        walk(path);
      } else out.set(path, 'file');
    }
  };
  walk(root);
  return out;
}

test('random trees of files, folders and links: exactly the links the rule condemns go, nothing else changes', () => {
  for (let seed = 1; seed <= 40; seed++) {
    const rnd = seededRandom(seed);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
    const ws = workspace();
    try {
      const folders = [ws];
      const made: string[] = [];
      for (let i = 0; i < 30; i++) {
        const dir = pick(folders);
        const path = join(dir, `e${i}`);
        const kind = rnd();
        if (kind < 0.3) writeFileSync(path, `${i}`);
        else if (kind < 0.45) folders.push((mkdirSync(path), path));
        else {
          const target = pick([
            () => relative(dir, pick(made.length ? made : [ws])) || '.',
            () => pick(made.length ? made : [ws]),
            () => `e${Math.floor(rnd() * 40)}`,
            () => `../${pick(['e1', 'e2', 'missing', '..', '.'])}`,
            () => pick(['/proc/self/cwd', '/proc/1/root/etc', '/dev/fd/0', '/usr/bin/env', '/etc', '/nowhere']),
            () => `${pick(made.length ? made : [ws])}/x`,
          ])();
          symlinkSync(target, path);
        }
        made.push(path);
      }
      for (const dir of folders.slice(1)) chmodSync(dir, pick([0o755, 0o555, 0o000, 0o700]));
      const before = entries(ws);
      const condemned = [...before]
        .filter(([p, kind]) => kind.startsWith('link ') && !leadsSomewhere(p))
        .map(([p]) => p);
      const { cut, count } = check(ws);
      const after = entries(ws);
      const where = `seed ${seed}: ${JSON.stringify([...before])}`;
      assert.deepEqual(cut.map((c) => join(ws, c.path)).sort(), condemned.sort(), where);
      assert.equal(count, condemned.length, where);
      for (const p of condemned) before.delete(p);
      assert.deepEqual([...after].sort(), [...before].sort(), where);
    } finally {
      spawnSync('chmod', ['-R', 'u+rwx', ws]);
      rmSync(ws, { recursive: true, force: true });
    }
  }
});
