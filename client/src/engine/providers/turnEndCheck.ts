/**
 * Symlinks the agent leaves in its workspace, cut before anything grades
 * (docs/security.md, "Links the agent leaves"). A grader reads the agent's
 * files with the server's rights: a link `answer.txt -> <the environment's
 * golden file>` that the agent itself could never open would be opened by
 * the grader, and the agent's answer would be the expected one.
 *
 * The check runs once the agent's processes are gone, in the agent's own
 * view and with its rights (its user in a container, its sandbox on the
 * local runtime), so "could the agent read it" is asked of the kernel, not
 * guessed. It walks the folders it is given (the local workspace; all of
 * a container) and looks at the links the agent's user made, not those of
 * the server or the image. A link is removed when, followed one step at a
 * time, it:
 *
 * - leads nowhere (what it names may appear later: a verifier's files, a
 *   grader's own output, or, on the local runtime, the server's private
 *   folders, which the agent's view does not hold);
 * - passes through /proc, where `self` and `cwd` mean the reader, not the
 *   agent (`/proc/self/cwd/...` is the server's folder to the server);
 * - ends where the agent cannot read (a folder: list and enter);
 * - or, wherever it leads, sits in or below a shared folder: someone
 *   else's that the agent may add names to (/tmp and /dev/shm, a scratch
 *   folder everyone or the agent's group writes), where graders write
 *   scratch files: `/tmp/grading/expected.txt -> answer.txt` had a grader
 *   write its expected value into the answer.
 *
 * For the same reason a file of the agent's there that has other names
 * too (a hard link to its answer) gets a copy of its own. Elsewhere (its
 * workspace) its links to its own files, and its hard links, stay: an
 * honest task may ask for them.
 *
 * Last, it is given the folders where the graders look programs and
 * modules up (the image's PATH; the check adds its interpreter's library
 * folders) and reports those where the agent could have put its own: one
 * it may write, or one it may create or rename through a folder above. A
 * grader that runs `pytest` by name would run the agent's; nothing is
 * removed there (the image put it on the path), the reward is marked
 * forgeable instead (docs/security.md, "Where the graders look programs up").
 * A relative entry is the agent's as far as the check can tell, unless the
 * caller names the folder the graders run in (Harbor's tests run in the
 * task's workdir); there, it also reports the modules the agent could have
 * left under the names of python3's own (`json.py`), which a python3 the
 * graders start there with `-`, `-c` or `-m` would import instead.
 *
 * The script runs under `python3 -I -S` (no environment variables, user
 * site or working folder on its path). Folders the agent made unreadable or
 * read-only are opened for the check and get their mode back after; one of
 * its own it cannot open, or a link of its own it cannot remove, fails the
 * check (exit 1), and with it the rollout, rather than let a grader follow
 * an unchecked link or write through an unchecked name. What the server or
 * the image's services change meanwhile (a file gone, a folder it may not
 * list) is not the agent's and is passed over.
 *
 * A folder of someone else's that the agent may enter but not list (a drop
 * folder, mode 0733) hides what the agent left in it from its own walk.
 * The walk reports such folders and the agent's identity; the container
 * seats then have root walk them with `--as` (unlistedCheckArgs), judging
 * ownership as the agent, and cutting every link of its there, since root
 * cannot ask what the agent may read. The local runtime needs no such
 * walk: its agent and server are one user, so nothing there is foreign.
 */
import { HudStudioError } from '../errors';
import type { ExecResult } from './provider';

/** A link that was cut: where it was, and what it named. */
export interface CutLink {
  path: string;
  target: string;
}

/**
 * What the check at the end of the agent's turn did and found: the links
 * it cut (the first ones) and how many there were; the files the agent had
 * made under two names or more that were given a copy each (the first
 * ones), and how many; the folders where the graders look programs and
 * modules up in which the agent could have put its own (a relative entry
 * as written, when nobody said where the graders run); and, in the folder
 * where they run, the modules that would shadow a Python's own.
 */
export interface TurnEndCheck {
  cut: CutLink[];
  count: number;
  split: string[];
  splitCount: number;
  reachable: string[];
  shadowing: ShadowingModule[];
  /** Folders of someone else's the agent could enter but not list: root walks them (unlistedCheckArgs). */
  unlisted: string[];
  /** The agent's user and groups as the check ran (`UID:GID,GID`), for root's walk to judge by. */
  agent: string;
}

/** A module in the graders' working folder, and the module of the standard library or site-packages it shadows. */
export interface ShadowingModule {
  path: string;
  module: string;
}

/** What a seat that checked nothing returns. */
export const NOTHING_CHECKED: TurnEndCheck = Object.freeze({
  cut: [],
  count: 0,
  split: [],
  splitCount: 0,
  reachable: [],
  shadowing: [],
  unlisted: [],
  agent: '',
});

/** How long the check of a workspace may take; past it the check has failed, and nothing is graded. */
export const TURN_END_CHECK_TIMEOUT_MS = 60_000;

/** What the script prints at most, of the links it cut (it always cuts all). */
const LISTED = 50;

export const TURN_END_CHECK_SCRIPT = `
import sys
# Modules a Python has before it reads a path (built in, frozen, loaded at start): nothing in a folder shadows them.
# Run from beside a container, the launcher names those it had itself, before it imported this script's modules.
preloaded = set(globals().get("PRELOADED", sys.modules))
import importlib.machinery, json, os, site, stat, sysconfig
args = sys.argv[1:]
# After "--search": the folders where the graders look programs and modules up (the image's PATH, PYTHONPATH).
roots, search = (args[:args.index("--search")], args[args.index("--search") + 1:]) if "--search" in args else (args, [])
# "--run-in DIR": the folder the graders run in, when the caller knows it (Harbor's tests run in the workdir).
run_in = None
if "--run-in" in roots:
    at = roots.index("--run-in")
    run_in = roots[at + 1]
    del roots[at:at + 2]
# "--as UID:GID,...": root's walk of the folders the agent's own walk could enter but not list, judging as the
# agent (its user and groups, as that walk reported them).
judged_as = None
if "--as" in roots:
    at = roots.index("--as")
    judged_as = roots[at + 1]
    del roots[at:at + 2]
if judged_as:
    me, _, groups = judged_as.partition(":")
    me, my_groups = int(me), {int(g) for g in groups.split(",") if g}
else:
    me, my_groups = os.getuid(), set(os.getgroups()) | {os.getgid()}
listed = ${LISTED}

def follow(path):
    hops = 0
    todo = path.split("/")[::-1]
    at = "/"
    while todo:
        name = todo.pop()
        if name in ("", "."):
            continue
        if name == "..":
            at = os.path.dirname(at)
            continue
        step = at.rstrip("/") + "/" + name
        if step == "/proc" or step.startswith("/proc/"):
            return None
        try:
            st = os.lstat(step)
        except OSError:
            return None
        if stat.S_ISLNK(st.st_mode):
            hops += 1
            if hops > 40:
                return None
            target = os.readlink(step)
            todo.extend(target.split("/")[::-1])
            if target.startswith("/"):
                at = "/"
            continue
        at = step
    return at

def harmless(link):
    end = follow(link)
    if end is None:
        return False
    return os.access(end, os.R_OK | (os.X_OK if os.path.isdir(end) else 0))

restore = []
def opened(folder, bits, st=None):
    # The agent's own folder, that it locked: opened for the check, its mode given back after.
    st = st or os.lstat(folder)
    mode = stat.S_IMODE(st.st_mode)
    if st.st_uid == me and mode & bits != bits:
        os.chmod(folder, mode | bits)
        restore.append((folder, mode))
    return st.st_uid == me

unlisted = []
def listing(folder):
    # The folder's entries and its lstat. One that went meanwhile (the server and the image's services still run)
    # held nothing of the agent's.
    mine = False
    try:
        st = os.lstat(folder)
        mine = opened(folder, stat.S_IRUSR | stat.S_IXUSR, st)
        if not mine and not os.access(folder, os.R_OK | os.X_OK):
            # Someone else's folder the agent may enter but not list (mode 0733, 0711): what it left below is out
            # of this walk's sight, and the caller has root walk it (--as).
            if os.access(folder, os.X_OK):
                unlisted.append(folder)
            return [], st
        with os.scandir(folder) as entries:
            return list(entries), st
    except (FileNotFoundError, NotADirectoryError):
        return [], None
    except PermissionError:
        if mine:
            raise
        return [], None

def may_add(st):
    # Whether the agent may add names to the folder, by its mode bits (the class that applies: owner, group, others).
    if st.st_uid == me:
        return True
    bits = st.st_mode >> 3 if st.st_gid in my_groups else st.st_mode
    return bits & 3 == 3

def split(path, st):
    # One file under two names, one of them in a shared folder: a grader that writes its scratch file
    # there would write the agent's other name. This name gets a copy of its own, with the same content, mode
    # and times.
    folder = os.path.dirname(path)
    opened(folder, stat.S_IWUSR | stat.S_IXUSR)
    mode = stat.S_IMODE(st.st_mode)
    locked = not mode & stat.S_IRUSR
    if locked:
        os.chmod(path, mode | stat.S_IRUSR)
    src = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    copy = "%s/.hud-studio-split-%s" % (folder, os.urandom(8).hex())
    try:
        dst = os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            while True:
                chunk = os.read(src, 1 << 20)
                if not chunk:
                    break
                view = memoryview(chunk)
                while view:
                    view = view[os.write(dst, view):]
            if judged_as:
                # Root's walk makes the copy: it goes to the file's owner.
                os.fchown(dst, st.st_uid, st.st_gid)
            os.fchmod(dst, mode)
        finally:
            os.close(dst)
        os.utime(copy, ns=(st.st_atime_ns, st.st_mtime_ns), follow_symlinks=False)
        os.replace(copy, path)
    except OSError:
        try:
            os.unlink(copy)
        except OSError:
            pass
        raise
    finally:
        if locked:
            os.fchmod(src, mode)
        os.close(src)

def owner(entry):
    try:
        return entry.stat(follow_symlinks=False).st_uid
    except FileNotFoundError:
        return None

cut, count, split_names, split_count, failed = [], 0, [], 0, None
# Root cannot ask the kernel what the agent may read, so its walk treats every folder as shared: every link of the
# agent's there is cut and every file of its with other names copied apart.
folders = [(r, judged_as is not None) for r in roots if os.path.isdir(r) and not os.path.islink(r)]
try:
    while folders:
        folder, in_shared = folders.pop()
        if folder in ("/proc", "/sys"):
            continue
        entries, st = listing(folder)
        if st is None:
            continue
        # Only in a folder it owns or may write can the agent have made links: elsewhere (most of an image)
        # nobody asks who made each link.
        agents = may_add(st)
        # Someone else's folder the agent may add names to (/tmp and /dev/shm; a scratch folder everyone or its
        # group writes), and all below it: the graders write there too. The kernel's fs.protected_symlinks, when
        # the host has it on, refuses them the links of others only in a sticky folder everyone writes.
        in_shared = in_shared or (agents and st.st_uid != me)
        for entry in entries:
            if entry.is_symlink():
                if not agents or owner(entry) != me or (not in_shared and harmless(entry.path)):
                    continue
                target = os.readlink(entry.path)
                opened(folder, stat.S_IWUSR | stat.S_IXUSR)
                os.unlink(entry.path)
                count += 1
                if len(cut) < listed:
                    cut.append([entry.path, target])
            elif entry.is_dir(follow_symlinks=False):
                folders.append((entry.path, in_shared))
            elif in_shared and entry.is_file(follow_symlinks=False):
                try:
                    est = entry.stat(follow_symlinks=False)
                except FileNotFoundError:
                    continue
                if est.st_uid == me and est.st_nlink > 1:
                    split(entry.path, est)
                    split_count += 1
                    if len(split_names) < listed:
                        split_names.append(entry.path)
except OSError as err:
    failed = "%s: %s" % (err.filename, err.strerror)
for folder, mode in reversed(restore):
    try:
        os.chmod(folder, mode)
    except OSError:
        pass

def changeable(folder):
    # Whether the agent could put a program or module of its own where the graders look: the folder is its own
    # (whatever its mode: the owner may change that) or writable, or a folder above it lets the agent create
    # what is missing or rename what is there (in a sticky folder, only what is its own).
    def facts(path):
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return "missing"
        except OSError:
            return None
        return st
    child = os.path.normpath(folder)
    below = facts(child)
    if below not in (None, "missing") and (below.st_uid == me or os.access(child, os.W_OK)):
        return True
    while True:
        parent = os.path.dirname(child)
        above = facts(parent)
        if above not in (None, "missing") and (above.st_uid == me or os.access(parent, os.W_OK | os.X_OK)):
            if below == "missing" or not above.st_mode & stat.S_ISVTX or above.st_uid == me:
                return True
            if below is not None and below.st_uid == me:
                return True
        if parent == child:
            return False
        child, below = parent, above

paths = sysconfig.get_paths()
libraries = [paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths]
if search:
    search += libraries
reachable = []
for folder in search:
    # A relative entry ("" too) names a folder under whichever one a grader runs in: the agent's, as far as
    # anyone can tell, unless the caller says where they run.
    if not folder.startswith("/"):
        if run_in is None:
            if folder not in reachable:
                reachable.append(folder)
            continue
        folder = os.path.normpath(os.path.join(run_in, folder))
    if folder not in reachable and changeable(folder):
        reachable.append(folder)

def shadowing(folder):
    # Modules the agent could have left where the graders run: a python3 started there with "-", -c or -m looks
    # modules up in that folder first, so its json.py would be what "import json" runs, with the graders' rights.
    found = []
    if not changeable(folder):
        return found
    try:
        with os.scandir(folder) as it:
            entries = list(it)
    except OSError:
        return found
    # This interpreter's own path (-I -S: the standard library, its zip and lib-dynload, nothing of the
    # caller's), its library folders, and the site-packages a python3 started without -S would add.
    where = [p for p in sys.path if p.startswith("/")] + libraries + site.getsitepackages()
    suffixes = sorted(importlib.machinery.all_suffixes(), key=len, reverse=True)
    stdlib = getattr(sys, "stdlib_module_names", ())
    for entry in sorted(entries, key=lambda e: e.name):
        name = None
        try:
            if entry.is_dir():
                if any(os.path.isfile(os.path.join(entry.path, "__init__" + s)) for s in suffixes):
                    name = entry.name
            elif entry.is_file():
                name = next((entry.name[:-len(s)] for s in suffixes if entry.name.endswith(s)), None)
        except OSError:
            continue
        if not name or not name.isidentifier() or name in preloaded or name in sys.builtin_module_names:
            continue
        if importlib.machinery.FrozenImporter.find_spec(name) is not None:
            continue
        if name in stdlib or importlib.machinery.PathFinder.find_spec(name, where) is not None:
            found.append([entry.path, name])
    return found

shadows = shadowing(run_in) if run_in else []
print(json.dumps({"cut": cut, "count": count, "split": split_names, "splitCount": split_count,
                  "reachable": reachable, "shadowing": shadows[:listed], "unlisted": unlisted,
                  "agent": "%d:%s" % (me, ",".join(str(g) for g in sorted(my_groups))), "failed": failed}))
sys.exit(1 if failed else 0)
`;

/**
 * The script's arguments: the folders to walk, the folder the graders run in when known, then those where they
 * look programs and modules up.
 */
export function turnEndCheckArgs(roots: readonly string[], search: readonly string[], runIn?: string): string[] {
  return [...roots, ...(runIn ? ['--run-in', runIn] : []), ...(search.length ? ['--search', ...search] : [])];
}

/** The first few of `xs`, quoted (JSON escapes whatever a file name holds), and how many more there are. */
export const listed = (xs: readonly string[]): string =>
  xs
    .slice(0, 5)
    .map((x) => JSON.stringify(x))
    .join(', ') + (xs.length > 5 ? ` and ${xs.length - 5} more` : '');

/** Why a grade from the checked substrate is forgeable, when the agent could reach where the graders look. */
export function reachableWhy(
  reachable: readonly string[],
  where = "the image's PATH, and its PYTHONPATH where the image's own SDK serves",
): string | undefined {
  const relative = reachable.filter((d) => !d.startsWith('/'));
  const absolute = reachable.filter((d) => d.startsWith('/'));
  const said: string[] = [];
  if (absolute.length)
    said.push(
      `the agent's user could put programs or modules of its own in ${listed(absolute)}, where the graders look them up (${where} and the library folders of python3), so a program a grader runs by name, or a module it imports, may be the agent's`,
    );
  if (relative.length)
    said.push(
      `relative entries where the graders look programs and modules up (${listed(relative)} in ${where}; "" is the working folder) name a folder under the one a grader runs in, which may be the agent's`,
    );
  return said.length ? said.join('; ') : undefined;
}

/**
 * Why a grade is forgeable when the agent left modules that shadow a Python's own where the graders run; `how`
 * words it for a separate verifier, which gets them as artifacts.
 */
export function shadowingWhy(
  shadowing: readonly ShadowingModule[],
  folder: string,
  how: Partial<ShadowingWords> = {},
): string | undefined {
  if (!shadowing.length) return undefined;
  const w = { ...GRADERS_FOLDER, ...how };
  const first = shadowing[0]!;
  return `${w.left} ${listed(shadowing.map((s) => s.path))} in ${JSON.stringify(folder)}, ${w.where}, under the names of modules of python3's own (${listed(shadowing.map((s) => s.module))}): ${w.lookup}, so \`import ${first.module}\` would run the agent's code with the ${w.graders}' rights`;
}

/** How shadowingWhy says who left the modules, where the folder is to the graders, and why they look there. */
export interface ShadowingWords {
  left: string;
  where: string;
  lookup: string;
  graders: string;
}

const GRADERS_FOLDER: ShadowingWords = {
  left: 'the agent left',
  where: 'where the graders run',
  lookup: 'a python3 started there with "-", -c or -m looks modules up in that folder first',
  graders: 'graders',
};

/** The links the script cut, from its output; throws when it could not check the whole workspace. */
export function turnEndCheckOf(res: ExecResult, roots: readonly string[]): TurnEndCheck {
  let report:
    | {
        cut?: unknown;
        count?: unknown;
        split?: unknown;
        splitCount?: unknown;
        reachable?: unknown;
        shadowing?: unknown;
        unlisted?: unknown;
        agent?: unknown;
        failed?: unknown;
      }
    | undefined;
  try {
    report = JSON.parse(res.stdout.trim().split('\n').pop() ?? '') as typeof report;
  } catch {
    report = undefined;
  }
  const failed = typeof report?.failed === 'string' ? report.failed : undefined;
  if (
    res.exitCode !== 0 ||
    !report ||
    failed ||
    !Array.isArray(report.cut) ||
    typeof report.count !== 'number' ||
    !Array.isArray(report.split) ||
    typeof report.splitCount !== 'number' ||
    !Array.isArray(report.reachable) ||
    !Array.isArray(report.shadowing) ||
    !Array.isArray(report.unlisted) ||
    typeof report.agent !== 'string'
  ) {
    const why = failed ?? (res.stderr.trim() || res.stdout.trim() || `exit ${res.exitCode}`);
    throw new HudStudioError(
      'provider',
      `checking the links the agent left in ${roots.join(', ')} failed, so nothing was graded: ${why}`,
      { hint: 'a grader would follow a link nobody checked; the agent left something the check could not open' },
    );
  }
  const pairs = (xs: unknown[]): [string, string][] =>
    xs.filter((c): c is [string, string] => Array.isArray(c) && typeof c[0] === 'string' && typeof c[1] === 'string');
  const cut = pairs(report.cut as unknown[]).map(([path, target]) => ({ path, target }));
  const strings = (xs: unknown[]): string[] => xs.filter((x): x is string => typeof x === 'string');
  return {
    cut,
    count: report.count,
    split: strings(report.split as unknown[]),
    splitCount: report.splitCount,
    reachable: strings(report.reachable as unknown[]),
    shadowing: pairs(report.shadowing as unknown[]).map(([path, module]) => ({ path, module })),
    unlisted: strings(report.unlisted as unknown[]),
    agent: report.agent,
  };
}

/**
 * The script's arguments for root's walk of the folders the agent's walk could enter but not list (a drop
 * folder of mode 0733): judged as the agent, every link of its there is cut and every file of its with other
 * names copied apart, since root cannot ask the kernel what the agent may read. Its processes are gone by then,
 * so nothing changes under root's walk.
 */
export function unlistedCheckArgs(check: TurnEndCheck): string[] {
  return ['--as', check.agent, ...check.unlisted];
}

/**
 * The check the agent's walk printed in `res` (of the whole file system), and root's walk of what it could not
 * list when there is any: `asRoot` runs the script as root with the arguments it is given.
 */
export async function withRootWalk(
  res: ExecResult,
  asRoot: (args: string[]) => Promise<ExecResult>,
): Promise<TurnEndCheck> {
  const check = turnEndCheckOf(res, ['/']);
  if (!check.unlisted.length) return check;
  return withUnlisted(check, turnEndCheckOf(await asRoot(unlistedCheckArgs(check)), check.unlisted));
}

/** The agent's walk and root's walk of what it could not list, as one check. */
export function withUnlisted(first: TurnEndCheck, second: TurnEndCheck): TurnEndCheck {
  return {
    ...first,
    cut: [...first.cut, ...second.cut].slice(0, LISTED),
    count: first.count + second.count,
    split: [...first.split, ...second.split].slice(0, LISTED),
    splitCount: first.splitCount + second.splitCount,
    unlisted: second.unlisted,
  };
}

/**
 * The first ten of a warning's names, already quoted: a name is the
 * agent's, and a newline in one would start a line of the log's own.
 */
function shown(names: readonly string[], count: number): string {
  const more = count > 10 ? ` and ${count - 10} more` : '';
  return names.slice(0, 10).join(', ') + more;
}

/** The rollout's warning for what the check changed; undefined when it changed nothing. */
export function turnEndWarning({ cut, count, split, splitCount }: TurnEndCheck): string | undefined {
  const said: string[] = [];
  if (count)
    said.push(
      `removed ${count} symlink${count === 1 ? '' : 's'} the agent left that lead nowhere, through /proc or where the agent cannot read, or that sit in a folder it shares with others (such as /tmp), before grading: ${shown(
        cut.map((l) => `${JSON.stringify(l.path)} -> ${JSON.stringify(l.target)}`),
        count,
      )}`,
    );
  if (splitCount)
    said.push(
      `gave ${splitCount} file${splitCount === 1 ? '' : 's'} the agent had hard-linked under another name a copy of ${splitCount === 1 ? 'its' : 'their'} own, before grading: ${shown(
        split.map((p) => JSON.stringify(p)),
        splitCount,
      )}`,
    );
  return said.length ? `${said.join('; ')} (docs/security.md, "Links the agent leaves")` : undefined;
}
