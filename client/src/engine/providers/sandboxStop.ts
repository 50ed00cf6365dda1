/**
 * Stopping a server that runs in a bubblewrap sandbox (localSandbox.ts), with
 * its teardown first. The group is bwrap (the leader, outside), the
 * sandbox's init (its child, PID 1 inside) and the server with whatever it
 * started. SIGTERM goes to the server's side only: bwrap dies of it, and
 * then the kernel would kill the server before its teardown ran. When the
 * server exits, the init exits and the kernel kills everything left in the
 * PID namespace; after the grace period SIGKILL does the same at once. Either
 * way, processes that left the group (`setsid`) go with the namespace.
 */
import { DEFAULT_KILL_GRACE_MS, groupAlive, groupMembers, signalGroup, waitGroupGone } from './processGroup';

export async function stopSandbox(leader: number, graceMs = DEFAULT_KILL_GRACE_MS): Promise<void> {
  if (!groupAlive(leader)) return;
  for (const m of groupMembers(leader) ?? []) {
    if (m.pid === leader || m.ppid === leader || m.state === 'Z') continue;
    try {
      process.kill(m.pid, 'SIGTERM');
    } catch {
      // exited meanwhile
    }
  }
  // The namespace's init is in the group, and it only goes once the namespace is empty.
  if (await waitGroupGone(leader, graceMs)) return;
  signalGroup(leader, 'SIGKILL');
  await waitGroupGone(leader, 2_000);
}
