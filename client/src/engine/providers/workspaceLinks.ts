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
 * guessed. It walks the folders it is given (the workspace; all of a
 * Harbor container, harbor/agentLinks.ts) and looks at the links the
 * agent's user made, not those of the server or the image. A link is
 * removed when, followed one step at a time, it:
 *
 * - leads nowhere (what it names may appear later: a verifier's files, a
 *   grader's own output, or, on the local runtime, the server's private
 *   folders, which the agent's view does not hold);
 * - passes through /proc, where `self` and `cwd` mean the reader, not the
 *   agent (`/proc/self/cwd/...` is the server's folder to the server);
 * - ends where the agent cannot read (a folder: list and enter).
 *
 * The script runs under `python3 -I -S` (no environment variables, user
 * site or working folder on its path). Folders the agent made unreadable or
 * read-only are opened for the check and get their mode back after; one of
 * its own it cannot open, or a link of its own it cannot remove, fails the
 * check (exit 1), and with it the rollout, rather than let a grader follow
 * an unchecked link. What the server or the image's services change
 * meanwhile (a file gone, a folder it may not list) is not the agent's and
 * is passed over.
 */
import { HudStudioError } from '../errors';
import type { ExecResult } from './provider';

/** A link that was cut: where it was, and what it named. */
export interface CutLink {
  path: string;
  target: string;
}

/** The links a seat cut (the first ones) and how many there were. */
export interface CutLinks {
  cut: CutLink[];
  count: number;
}

/** What a seat that cut nothing returns. */
export const NO_LINKS_CUT: CutLinks = Object.freeze({ cut: [], count: 0 });

/** How long the check of a workspace may take; past it the check has failed, and nothing is graded. */
export const CUT_LINKS_TIMEOUT_MS = 60_000;

/** What the script prints at most, of the links it cut (it always cuts all). */
const LISTED = 50;

export const CUT_LINKS_SCRIPT = `
import json, os, stat, sys
roots = sys.argv[1:]
me = os.getuid()
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
def opened(folder, bits):
    # The agent's own folder, that it locked: opened for the check, its mode given back after.
    st = os.lstat(folder)
    mode = stat.S_IMODE(st.st_mode)
    if st.st_uid == me and mode & bits != bits:
        os.chmod(folder, mode | bits)
        restore.append((folder, mode))
    return st.st_uid == me

def listing(folder):
    # A folder of someone else's that the agent cannot list holds nothing it could have put there to be read;
    # one that went meanwhile (the server and the image's services still run) held nothing of the agent's.
    mine = False
    try:
        mine = opened(folder, stat.S_IRUSR | stat.S_IXUSR)
        if not mine and not os.access(folder, os.R_OK | os.X_OK):
            return []
        with os.scandir(folder) as entries:
            return list(entries)
    except (FileNotFoundError, NotADirectoryError):
        return []
    except PermissionError:
        if mine:
            raise
        return []

def owner(entry):
    try:
        return entry.stat(follow_symlinks=False).st_uid
    except FileNotFoundError:
        return None

cut, count, failed = [], 0, None
folders = [r for r in roots if os.path.isdir(r) and not os.path.islink(r)]
try:
    while folders:
        folder = folders.pop()
        if folder in ("/proc", "/sys"):
            continue
        for entry in listing(folder):
            if entry.is_symlink():
                if owner(entry) != me or harmless(entry.path):
                    continue
                target = os.readlink(entry.path)
                opened(folder, stat.S_IWUSR | stat.S_IXUSR)
                os.unlink(entry.path)
                count += 1
                if len(cut) < listed:
                    cut.append([entry.path, target])
            elif entry.is_dir(follow_symlinks=False):
                folders.append(entry.path)
except OSError as err:
    failed = "%s: %s" % (err.filename, err.strerror)
for folder, mode in reversed(restore):
    try:
        os.chmod(folder, mode)
    except OSError:
        pass
print(json.dumps({"cut": cut, "count": count, "failed": failed}))
sys.exit(1 if failed else 0)
`;

/** The links the script cut, from its output; throws when it could not check the whole workspace. */
export function cutLinksOf(res: ExecResult, roots: readonly string[]): CutLinks {
  let report: { cut?: unknown; count?: unknown; failed?: unknown } | undefined;
  try {
    report = JSON.parse(res.stdout.trim().split('\n').pop() ?? '') as typeof report;
  } catch {
    report = undefined;
  }
  const failed = typeof report?.failed === 'string' ? report.failed : undefined;
  if (res.exitCode !== 0 || !report || failed || !Array.isArray(report.cut) || typeof report.count !== 'number') {
    const why = failed ?? (res.stderr.trim() || res.stdout.trim() || `exit ${res.exitCode}`);
    throw new HudStudioError(
      'provider',
      `checking the links the agent left in ${roots.join(', ')} failed, so nothing was graded: ${why}`,
      { hint: 'a grader would follow a link nobody checked; the agent left something the check could not open' },
    );
  }
  const cut = (report.cut as unknown[])
    .filter((c): c is [string, string] => Array.isArray(c) && typeof c[0] === 'string' && typeof c[1] === 'string')
    .map(([path, target]) => ({ path, target }));
  return { cut, count: report.count };
}

/** The rollout's warning for the links that were cut. */
export function cutLinksWarning({ cut, count }: CutLinks): string {
  const shown = cut
    .slice(0, 10)
    // Quoted: a name is the agent's, and a newline in one would start a line of the log's own.
    .map((l) => `${JSON.stringify(l.path)} -> ${JSON.stringify(l.target)}`)
    .join(', ');
  const more = count > 10 ? ` and ${count - 10} more` : '';
  return `removed ${count} symlink${count === 1 ? '' : 's'} the agent left that lead nowhere, through /proc or where the agent cannot read, before grading: ${shown}${more} (docs/security.md, "Links the agent leaves")`;
}
