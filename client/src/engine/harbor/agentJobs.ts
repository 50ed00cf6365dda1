/**
 * Jobs a non-root Harbor agent left with a scheduler of the image
 * (docs/security.md, "Jobs left with a scheduler"). The end of its turn
 * kills every process it started, but a `cron` or `atd` that the image's
 * entrypoint runs would start such a job later, as the agent, while the
 * tests grade: one that puts back a link the turn-end check cut, or
 * writes the answer once the tests have written their expected word, would
 * pass them. A task may ask for a crontab, so the jobs stay; the reward is
 * marked forgeable instead, naming them. The spools are root's to read.
 */
import type { ManagedContainer } from '../docker/types';
import { listed } from '../providers/turnEndCheck';

/**
 * Prints the agent's crontab files (named after its user: Debian's and
 * busybox's spool, cronie's, SUSE's) and its `at` jobs (owned by it:
 * Debian's and Red Hat's spool), one path a line.
 */
const LIST_JOBS = [
  'user=${1%%:*}',
  'uid=$(id -u "$user" 2>/dev/null) && name=$(id -un "$user" 2>/dev/null) || exit 0',
  'for f in /var/spool/cron/crontabs/"$name" /var/spool/cron/"$name" /var/spool/cron/tabs/"$name"; do',
  '  [ -f "$f" ] && echo "$f"',
  'done',
  'for d in /var/spool/cron/atjobs /var/spool/at; do',
  '  [ -d "$d" ] && find "$d" -maxdepth 1 -type f -user "$uid" ! -name ".*" 2>/dev/null',
  'done',
  'exit 0',
].join('\n');

/** The jobs in `main` of the agent's `user` (a name or id, `:group` allowed), by path; none if it is unknown there. */
export async function agentJobs(main: ManagedContainer, user: string): Promise<string[]> {
  const r = await main.exec(['sh', '-c', LIST_JOBS, 'hud-studio-jobs', user], { user: 'root', timeoutMs: 30_000 });
  return r.stdout.split('\n').filter((l) => l.startsWith('/'));
}

/** Why the reward is forgeable when the agent left jobs; undefined when it left none. */
export function agentJobsWhy(jobs: readonly string[]): string | undefined {
  if (!jobs.length) return undefined;
  return `the agent left jobs for a scheduler (${listed(jobs)}), which a cron or atd of the image would start as the agent while the tests grade`;
}
