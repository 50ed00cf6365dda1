/**
 * The verification step, the same in both modes once the container is
 * chosen: a fresh /logs/verifier (whatever the agent wrote there is gone), a
 * fresh /tests, `bash /tests/test.sh` with the verifier's user, workdir, env
 * and timeout, then the reward file.
 */
import type { ManagedContainer } from '../docker/types';
import { HudStudioError } from '../errors';
import type { ExecResult } from '../providers/provider';
import { LOGS_AGENT, LOGS_ARTIFACTS, LOGS_VERIFIER } from './artifacts';
import { HarborRewardError, parseRewardFile, type HarborReward } from './reward';

export const TESTS_DIR = '/tests';
const TAIL_LINES = 20;

/** Creates the /logs folders (writable by any user the task runs as). */
export async function prepareLogDirs(c: ManagedContainer): Promise<void> {
  await rootSh(c, `mkdir -p ${LOGS_AGENT} ${LOGS_ARTIFACTS} ${LOGS_VERIFIER} && chmod 777 ${LOGS_AGENT} ${LOGS_ARTIFACTS} ${LOGS_VERIFIER}`);
}

/** Removes anything the agent left in /logs/verifier or /tests, then installs the task's tests. */
export async function resetVerifierState(c: ManagedContainer, testsDir: string): Promise<void> {
  await rootSh(c, `rm -rf ${LOGS_VERIFIER} ${TESTS_DIR} && mkdir -p ${LOGS_VERIFIER} && chmod 777 ${LOGS_VERIFIER}`);
  await c.copyIn(testsDir, TESTS_DIR);
}

export interface RunTestsOptions {
  user?: string;
  cwd?: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
  onOutput: (stream: 'stdout' | 'stderr', text: string) => void;
}

export function runTests(c: ManagedContainer, opts: RunTestsOptions): Promise<ExecResult> {
  return c.exec(['bash', `${TESTS_DIR}/test.sh`], {
    env: opts.env,
    timeoutMs: opts.timeoutMs,
    ...(opts.user ? { user: opts.user } : {}),
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    onOutput: opts.onOutput,
  });
}

/** reward.json before reward.txt; neither is an error showing what the tests printed last. */
export async function readReward(c: ManagedContainer, tests: ExecResult): Promise<HarborReward> {
  for (const name of ['reward.json', 'reward.txt'] as const) {
    const r = await c.exec(['cat', `${LOGS_VERIFIER}/${name}`], { user: 'root', timeoutMs: 30_000 });
    if (r.exitCode === 0) return parseRewardFile({ name, text: r.stdout });
  }
  const tail = lastLines(`${tests.stdout}\n${tests.stderr}`, TAIL_LINES);
  throw new HarborRewardError(
    `tests/test.sh wrote no reward file (${LOGS_VERIFIER}/reward.json or reward.txt); it exited with code ${tests.exitCode}` +
      (tail ? ` and its last lines were:\n${tail}` : ' and printed nothing'),
    'make tests/test.sh write a number to /logs/verifier/reward.txt (or named numbers to reward.json) on every path, failures included',
  );
}

export function lastLines(text: string, n: number): string {
  return text
    .split('\n')
    .map((l) => l.trimEnd())
    .filter(Boolean)
    .slice(-n)
    .join('\n');
}

async function rootSh(c: ManagedContainer, script: string): Promise<void> {
  const r = await c.exec(['/bin/sh', '-c', script], { user: 'root', timeoutMs: 60_000 });
  if (r.exitCode !== 0) throw new HudStudioError('harbor-verifier', `preparing /logs and /tests failed: ${lastLines(r.stderr, 5) || `exit ${r.exitCode}`}`, { hint: 'the image needs /bin/sh, mkdir, chmod and rm' });
}
