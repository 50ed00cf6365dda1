/**
 * Agent commands that exhaust a resource of their seat, shared by the Docker
 * and bubblewrap attack tests (docs/security.md, "Exhaustion"), and the
 * host-side check that none of their processes outlived the run.
 */
import { readFileSync, readdirSync } from 'node:fs';

/** Pids of the host's processes whose command line holds `marker`. */
export function processesWith(marker: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)) found.push(pid);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/**
 * Starts a fork bomb whose processes fork without pause and retry when the
 * limit refuses them, waits until a fork has been refused (so the turn ends
 * with the bomb at its limit), then answers wrongly. Its processes carry
 * `marker` on their command line.
 */
export function forkBombAgent(workspace: string, marker: string): string {
  const bomb = [
    `# ${marker}`,
    'import os',
    'while True:',
    '    try:',
    '        os.fork()',
    '    except OSError:',
    `        open("${workspace}/full", "w").close()`,
  ].join('\n');
  return `setsid python3 -c '${bomb}' </dev/null >/dev/null 2>&1 & until [ -e "${workspace}/full" ]; do :; done; echo wrong`;
}
