/**
 * Conformance with the real HUD SDK v6 (docs/sdk-compatibility.md): the same
 * env files, task rows and answers through
 *   (a) the peer SDK end to end,
 *   (b) the peer's client against HUD Studio's bundled server,
 *   (c) HUD Studio's engine against the peer's server,
 *   (d) HUD Studio's engine on its bundled runtime, local and in Docker,
 * with identical status, reward, subscores (name, value, weight) and slug.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { FixedAgent } from '../../client/src/engine/agents/fixed';
import { DockerProvider } from '../../client/src/engine/providers/docker';
import { LocalProvider } from '../../client/src/engine/providers/local';
import type { AcquireOptions, EnvironmentSpec, Provider, Substrate } from '../../client/src/engine/providers/provider';
import { UrlProvider } from '../../client/src/engine/providers/url';
import { runtimePythonDir } from '../../client/src/engine/runtimePaths';
import { runRollout } from '../../client/src/engine/rollout';
import { CASES, envNames, type Case, type Row } from './cases';
import { peerPythonPath, REPO_ROOT, serve, stop, type Served } from './peer';

const run = promisify(execFile);

/**
 * One run as every path reports it. Rewards are rounded: the paths add the
 * same floats in the same order. JSON has no NaN or infinities, so such a
 * reward is compared by its Python name (`nan`, `inf`, `-inf`).
 */
interface Result {
  row: number;
  answer: string;
  status: string;
  reward: number | string | null;
  subscores: [string, number, number][];
  slug: string;
  /** The prompt the agent was given (the start frame's `prompt`); null when the run never got one. */
  prompt: unknown;
}

const round = (x: number): number => Math.round(x * 1e9) / 1e9;

function rewardOf(x: number | string): number | string {
  if (typeof x === 'string') return x;
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  return round(x);
}

function normalise(r: Result): Result {
  return {
    ...r,
    // An errored run without a grade: the SDK reports its empty Grade (0.0), the engine no reward.
    reward: r.reward === null && r.status === 'error' ? 0 : r.reward === null ? null : rewardOf(r.reward),
    prompt: r.prompt ?? null,
    subscores: r.subscores.map(([n, v, w]) => [n, round(v), round(w)]),
  };
}

/** Equal runs, or a failure that names each run that differs (row, template, answer) and how. */
function assertSameRuns(c: Case, got: Result[], expected: Result[]): void {
  const differences = expected.flatMap((wanted, i) => {
    const have = c.refusedAtLoad ? { ...got[i], slug: '' } : got[i];
    const want = c.refusedAtLoad ? { ...wanted, slug: '' } : wanted;
    try {
      assert.deepEqual(have, want);
      return [];
    } catch {
      const id = c.rows[want.row]?.id ?? '?';
      return [
        `row ${want.row} (${id}), answer ${JSON.stringify(want.answer)}:\n  got      ${JSON.stringify(have)}\n  expected ${JSON.stringify(want)}`,
      ];
    }
  });
  assert.equal(got.length, expected.length, `${got.length} runs, expected ${expected.length}`);
  assert.ok(differences.length === 0, `${differences.length} run(s) differ from the SDK's:\n${differences.join('\n')}`);
}

const scratch = mkdtempSync(join(tmpdir(), 'hs-conformance-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** The rows that live in the task file (the others are tasks of the env file itself). */
function fileRows(c: Case): Row[] {
  return c.rows.filter((r) => r.task === undefined);
}

/** Where the engine finds row `row` of a case: the env file's own task, or its line of the task file. */
function refOf(c: Case, m: { envFile: string; tasksFile: string }, row: number): string {
  const r = c.rows[row]!;
  return r.task !== undefined ? `${m.envFile}::${r.task}` : `${m.tasksFile}::${fileRows(c).indexOf(r)}`;
}

function materialise(c: Case, i: number): { dir: string; envFile: string; tasksFile: string } {
  const dir = join(scratch, `case-${i}`);
  mkdirSync(dir, { recursive: true });
  const envFile = join(dir, 'env.py');
  writeFileSync(envFile, c.source());
  for (const [rel, text] of Object.entries(c.files?.() ?? {})) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  const tasksFile = join(dir, 'tasks.jsonl');
  writeFileSync(
    tasksFile,
    `${fileRows(c)
      .map((r) => JSON.stringify(r))
      .join('\n')}\n`,
  );
  return { dir, envFile, tasksFile };
}

async function peerDriver(
  c: Case,
  envFile: string,
  dir: string,
  addresses: Record<string, string> = {},
): Promise<Result[]> {
  const args = [
    join(REPO_ROOT, 'test', 'conformance', 'peer_driver.py'),
    envFile,
    JSON.stringify(c.rows),
    JSON.stringify(c.answers),
    JSON.stringify(c.rolloutTimeoutS ?? null),
  ];
  for (const [env, address] of Object.entries(addresses)) args.push(`${env}=${address}`);
  const { stdout } = await run('python3', args, {
    cwd: dir,
    env: { ...process.env, PYTHONPATH: peerPythonPath(), PYTHONDONTWRITEBYTECODE: '1', HUD_API_KEY: '' },
    maxBuffer: 64 * 1024 * 1024,
    timeout: 300_000,
  });
  return (JSON.parse(stdout.trim().split('\n').at(-1) ?? '[]') as Result[]).map(normalise);
}

function promptOf(frame: unknown): unknown {
  return frame && typeof frame === 'object' && 'prompt' in frame ? frame.prompt : null;
}

/** Hands out borrowed servers in acquisition order (actor, then the verifier's), as a row's environments need. */
class SequencedUrlProvider implements Provider {
  readonly kind = 'url' as const;
  private next = 0;
  constructor(private readonly addresses: string[]) {}
  acquire(spec: EnvironmentSpec, opts: AcquireOptions): Promise<Substrate> {
    const address = this.addresses[Math.min(this.next++, this.addresses.length - 1)];
    if (!address) throw new Error('no address to borrow');
    return new UrlProvider(address).acquire(spec, opts);
  }
}

/**
 * Every run of a case through the engine, `concurrency` at a time, in the
 * SDK's order (row by row, each row's answers in turn). A run that fails an
 * assertion stops the others from starting; those under way finish (each
 * removes its own substrates) before the failure is reported.
 */
async function engine(
  c: Case,
  m: { dir: string; envFile: string; tasksFile: string },
  provider: (row: number) => Provider,
  concurrency = 1,
): Promise<Result[]> {
  const runs = c.rows.flatMap((_, row) => c.answers.map((answer) => ({ row, answer })));
  const out = new Array<Result>(runs.length);
  const failures: unknown[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < runs.length && failures.length === 0) {
      const i = next++;
      const { row, answer } = runs[i]!;
      try {
        out[i] = await engineRun(c, m, row, answer, provider(row));
      } catch (err) {
        failures.push(err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, runs.length) }, worker));
  if (failures.length > 0) throw failures[0];
  return out;
}

async function engineRun(
  c: Case,
  m: { dir: string; envFile: string; tasksFile: string },
  row: number,
  answer: string,
  provider: Provider,
): Promise<Result> {
  const r = c.rows[row]!;
  const outcome = await runRollout({
    ref: refOf(c, m, row),
    module: m.envFile,
    cwd: m.dir,
    provider,
    agent: new FixedAgent(answer),
    traceDir: null,
    timeouts: { rolloutMs: (c.rolloutTimeoutS ?? 180) * 1000 },
  });
  const failure = c.failedRows?.[row];
  if (c.refusedAtLoad) {
    assert.equal(outcome.error?.phase, 'setup', `${c.name}: ${outcome.status} ${outcome.error?.message}`);
    assert.match(outcome.error.message, c.refusedAtLoad);
  } else if (failure) {
    assert.equal(outcome.error?.phase, 'actor', `${c.name} row ${row}: ${outcome.status} ${outcome.error?.message}`);
    assert.match(outcome.error.message, failure);
  } else {
    assert.ok(
      outcome.status !== 'error' || outcome.error?.phase !== 'setup',
      `${c.name} row ${row} (${r.id}): ${outcome.error?.message}`,
    );
  }
  return normalise({
    row,
    answer,
    status: outcome.status,
    reward: outcome.reward,
    subscores: (outcome.result?.subscores ?? []).map((s) => [s.name, s.value, s.weight]),
    slug: outcome.trace.task.slug,
    prompt: promptOf(outcome.trace.prompt),
  });
}

/**
 * Runs of one case at once on the bundled runtime: each gets a process or a
 * container of its own, as in an eval job. Way (c) borrows one server of the
 * peer's per environment, which the SDK never shares between rollouts, so
 * its runs go one after another.
 */
const RUNS_AT_ONCE = 3;

describe('conformance with the real HUD SDK', () => {
  before(() => void peerPythonPath());

  for (const [i, c] of CASES.entries()) {
    describe(c.name, () => {
      const m = materialise(c, i);
      let expected: Result[];

      before(async () => {
        expected = await peerDriver(c, m.envFile, m.dir);
        assert.equal(expected.length, c.rows.length * c.answers.length);
      });

      test('(a) the peer SDK end to end graded every run', () => {
        assert.deepEqual(
          expected.map((r) => [r.row, r.answer]),
          c.rows.flatMap((_, row) => c.answers.map((answer) => [row, answer])),
        );
        for (const r of expected)
          assert.ok(r.slug && (r.status === 'completed' || r.status === 'error'), JSON.stringify(r));
      });

      test("(b) the peer's client against HUD Studio's bundled server", async () => {
        if (c.importFails) {
          await assert.rejects(serve(m.envFile, envNames(c)[0]!, runtimePythonDir(), m.dir), c.importFails);
          return;
        }
        const servers: Served[] = [];
        try {
          const addresses: Record<string, string> = {};
          for (const env of envNames(c)) {
            const s = await serve(m.envFile, env, runtimePythonDir(), m.dir);
            servers.push(s);
            addresses[env] = s.address;
          }
          assertSameRuns(c, await peerDriver(c, m.envFile, m.dir, addresses), expected);
        } finally {
          await Promise.all(servers.map(stop));
        }
      });

      test("(c) HUD Studio's engine against the peer's server", async () => {
        if (c.importFails) {
          await assert.rejects(serve(m.envFile, envNames(c)[0]!, peerPythonPath(), m.dir), c.importFails);
          return;
        }
        const servers = new Map<string, Served>();
        try {
          for (const env of envNames(c)) servers.set(env, await serve(m.envFile, env, peerPythonPath(), m.dir));
          const addressOf = (env: string): string => servers.get(env)!.address;
          const got = await engine(c, m, (row) => {
            const r = c.rows[row]!;
            return new SequencedUrlProvider([addressOf(r.env), ...(r.verifier ? [addressOf(r.verifier.env)] : [])]);
          });
          assertSameRuns(c, got, expected);
        } finally {
          await Promise.all([...servers.values()].map(stop));
        }
      });

      test("(d) HUD Studio's engine on its bundled runtime, local", async () => {
        const local = new LocalProvider();
        assertSameRuns(c, await engine(c, m, () => local, RUNS_AT_ONCE), expected);
      });

      test("(d) HUD Studio's engine on its bundled runtime, Docker", async () => {
        const docker = new DockerProvider({ stopGraceMs: 2_000 });
        assertSameRuns(c, await engine(c, m, () => docker, RUNS_AT_ONCE), expected);
      });
    });
  }
});
