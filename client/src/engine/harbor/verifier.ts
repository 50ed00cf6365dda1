/**
 * The verification step, the same in both modes once the container is
 * chosen (docs/harbor.md): a cleared /logs/verifier (whatever the agent wrote
 * there is gone, and the engine checks that it is), the tests (uploaded in
 * shared mode; owned by the image in separate mode), the test script run
 * directly so its shebang counts, with stdout and stderr merged, and the
 * reward file read through the Docker archive API, never with a program of
 * the container.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ManagedContainer } from '../docker/types';
import { HudStudioError } from '../errors';
import type { ExecResult } from '../providers/provider';
import { BatchedFile } from '../output/batchedFile';
import { archiveExists, archiveList, boundedArchiveCopy, readRegularFile } from './archive';
import { LOGS_AGENT, LOGS_ARTIFACTS, LOGS_VERIFIER } from './artifacts';
import { HarborRewardError, parseRewardFile, type HarborReward } from './reward';

export const TESTS_DIR = '/tests';
export const TEST_SCRIPT = `${TESTS_DIR}/test.sh`;
const TAIL_LINES = 20;

/** Creates the /logs folders (writable by any user the task runs as). */
export async function prepareLogDirs(c: ManagedContainer): Promise<void> {
  await rootSh(
    c,
    `mkdir -p ${LOGS_AGENT} ${LOGS_ARTIFACTS} ${LOGS_VERIFIER} && chmod 777 ${LOGS_AGENT} ${LOGS_ARTIFACTS} ${LOGS_VERIFIER}`,
  );
}

/**
 * Clears /logs/verifier (and, when host test folders are to be uploaded,
 * /tests), then checks through the archive API that nothing survived: the
 * container's own `rm` may have been replaced.
 */
export async function resetVerifierState(c: ManagedContainer, uploadTestsFrom: string[] | undefined): Promise<void> {
  const clearTests = uploadTestsFrom !== undefined ? ` ${TESTS_DIR}` : '';
  await rootSh(c, `rm -rf ${LOGS_VERIFIER}${clearTests} && mkdir -p ${LOGS_VERIFIER} && chmod 777 ${LOGS_VERIFIER}`);
  const left = await archiveList(c, LOGS_VERIFIER);
  if (left === undefined || left.length > 0) {
    throw new HudStudioError(
      'harbor-verifier',
      `${LOGS_VERIFIER} could not be cleared before verifying${left ? ` (still holds ${left.slice(0, 5).join(', ')})` : ''}: something in the container resists deletion`,
      {
        hint: 'the agent may have replaced rm or mkdir; use environment_mode = "separate" so the verifier gets a fresh container',
      },
    );
  }
  if (uploadTestsFrom === undefined) {
    if (!(await archiveExists(c, TEST_SCRIPT))) {
      throw new HudStudioError('harbor-verifier', `the separate verifier's image has no ${TEST_SCRIPT}`, {
        hint: 'a separate verifier image owns its tests: add `COPY . /tests/` (or `COPY test.sh /tests/test.sh`) to tests/Dockerfile',
      });
    }
    return;
  }
  if (await archiveExists(c, TESTS_DIR)) {
    throw new HudStudioError(
      'harbor-verifier',
      `${TESTS_DIR} could not be cleared before installing the task's tests`,
      {
        hint: 'the agent may have replaced rm; use environment_mode = "separate"',
      },
    );
  }
  // A step's own tests/ goes last, so its files win over the task's shared ones.
  for (const dir of uploadTestsFrom) await c.copyIn(dir, TESTS_DIR);
}

export interface RunTestsOptions {
  user?: string;
  cwd?: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Host file that receives stdout and stderr merged, whole, in arrival order (bounded memory, batchedFile.ts). */
  outputFile: string;
  /** Why the output file is incomplete (a full disk); the run goes on. */
  onOutputFileFailure?: (why: string) => void;
  onOutput: (stream: 'stdout' | 'stderr', text: string) => void;
}

/** chmod +x as root, then the script itself (its shebang decides the interpreter; none means sh). */
export async function runTests(c: ManagedContainer, opts: RunTestsOptions): Promise<ExecResult> {
  await rootSh(c, `chmod +x ${TEST_SCRIPT}`);
  return runMerged(c, ['/bin/sh', '-c', '"$0"', TEST_SCRIPT], opts);
}

/** Runs argv, streaming both outputs into one host file as they arrive. */
export async function runMerged(c: ManagedContainer, argv: string[], opts: RunTestsOptions): Promise<ExecResult> {
  mkdirSync(join(opts.outputFile, '..'), { recursive: true });
  const out = new BatchedFile(opts.outputFile, (why) => opts.onOutputFileFailure?.(why));
  try {
    return await c.exec(argv, {
      env: opts.env,
      timeoutMs: opts.timeoutMs,
      ...(opts.user ? { user: opts.user } : {}),
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
      onOutput: (stream, text) => {
        out.write(text);
        opts.onOutput(stream, text);
      },
    });
  } finally {
    out.close();
  }
}

/**
 * Copies /logs/verifier out through the archive API into `hostDir` and reads
 * the reward from that copy: reward.json before reward.txt, as Harbor does.
 * When the folder is over a copy's limit (docker/tar.ts: tests may copy what
 * the agent made into it), the reward files are copied alone, and `warn`
 * says the rest was left behind.
 */
export async function collectVerifierLogs(
  c: ManagedContainer,
  hostDir: string,
  tests: ExecResult,
  warn: (message: string) => void = () => undefined,
): Promise<HarborReward> {
  const got = await boundedArchiveCopy(c, LOGS_VERIFIER);
  if (got.status === 'too-large')
    warn(`${LOGS_VERIFIER} was not collected whole (${got.why}): only its reward file was`);
  const copy = got.status === 'copied' ? got.copy : got.status === 'too-large' ? await rewardFilesAlone(c) : undefined;
  try {
    let reward: HarborReward | undefined;
    for (const name of ['reward.json', 'reward.txt'] as const) {
      if (!copy) break;
      const text = readRegularFile(join(copy.path, name));
      if (text === undefined) continue;
      reward = parseRewardFile({ name, text });
      break;
    }
    if (copy) {
      cpSync(copy.path, hostDir, { recursive: true, force: true, verbatimSymlinks: true });
    }
    if (reward) return reward;
  } finally {
    copy?.dispose();
  }
  const tail = lastLines(`${tests.stdout}\n${tests.stderr}`, TAIL_LINES);
  throw new HarborRewardError(
    `tests/test.sh wrote no reward file (${LOGS_VERIFIER}/reward.json or reward.txt); it exited with code ${tests.exitCode}` +
      (tail ? ` and its last lines were:\n${tail}` : ' and printed nothing'),
    'make tests/test.sh write a number to /logs/verifier/reward.txt (or named numbers to reward.json) on every path, failures included',
    'RewardFileNotFoundError',
  );
}

/** reward.json and reward.txt copied one by one into a private folder (one over the limit counts as absent). */
async function rewardFilesAlone(c: ManagedContainer): Promise<{ path: string; dispose: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'hud-studio-reward-'));
  for (const name of ['reward.json', 'reward.txt']) {
    const one = await boundedArchiveCopy(c, `${LOGS_VERIFIER}/${name}`);
    if (one.status !== 'copied') continue;
    try {
      cpSync(one.copy.path, join(dir, name), { verbatimSymlinks: true });
    } finally {
      one.copy.dispose();
    }
  }
  return { path: dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
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
  if (r.exitCode !== 0)
    throw new HudStudioError(
      'harbor-verifier',
      `preparing /logs and /tests failed: ${lastLines(r.stderr, 5) || `exit ${r.exitCode}`}`,
      { hint: 'the image needs /bin/sh, mkdir, chmod and rm' },
    );
}
