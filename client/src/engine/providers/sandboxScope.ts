/**
 * The server's sandbox on the local runtime keeps the host's network
 * namespace (localSandbox.ts), and with it the host's abstract Unix sockets:
 * sockets named in the network namespace, not in the file system, so no bind
 * hides them. Desktop session buses, X servers and some daemons listen on
 * such names and trust a client by its user id, which the sandbox shares
 * with the person running HUD Studio; a server-side tool driven by the agent
 * could reach them and act outside the sandbox (docs/security.md).
 *
 * So every command in that sandbox starts through this launcher: it asks
 * Landlock (Linux 6.12 and later) to scope abstract Unix sockets to the
 * process and its descendants, then executes the command in its place; the
 * scope holds across exec and for every child. On a kernel without that
 * scope the command still runs, and the launcher says on stderr that the
 * host's abstract sockets stay reachable.
 */

/** Python (stdlib only) run as `python3 -I -S -c LAUNCHER argv...`: scope, then exec argv. */
const LAUNCHER = `
import ctypes, os, sys
LANDLOCK_CREATE_RULESET, LANDLOCK_RESTRICT_SELF = 444, 446
SCOPE_ABSTRACT_UNIX_SOCKET = 1
PR_SET_NO_NEW_PRIVS = 38
class Ruleset(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]
def scope():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    # Landlock requires no_new_privs (bwrap sets it too; setting it again is harmless).
    libc.prctl(ctypes.c_int(PR_SET_NO_NEW_PRIVS), ctypes.c_ulong(1), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))
    ruleset = Ruleset(0, 0, SCOPE_ABSTRACT_UNIX_SOCKET)
    fd = libc.syscall(ctypes.c_long(LANDLOCK_CREATE_RULESET), ctypes.byref(ruleset), ctypes.c_size_t(ctypes.sizeof(ruleset)), ctypes.c_uint32(0))
    if fd < 0:
        return os.strerror(ctypes.get_errno())
    try:
        if libc.syscall(ctypes.c_long(LANDLOCK_RESTRICT_SELF), ctypes.c_int(fd), ctypes.c_uint32(0)) != 0:
            return os.strerror(ctypes.get_errno())
    finally:
        os.close(fd)
    return None
try:
    why = scope()
except Exception as err:
    why = str(err)
if why:
    sys.stderr.write("[hud-studio] the host's abstract Unix sockets stay reachable from the server's sandbox: no Landlock scope on this kernel (%s; Linux 6.12+ has it)\\n" % why)
    sys.stderr.flush()
os.execvp(sys.argv[1], sys.argv[1:])
`;

/** `argv` started through the launcher, run by `python` (the sandbox's interpreter, by its file). */
export function scopedArgv(python: string, argv: string[]): string[] {
  return [python, '-I', '-S', '-c', LAUNCHER, ...argv];
}
