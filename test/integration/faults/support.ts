/** Shared by the fault suite: the fixture, a measured CLI run, and "nothing left" checks. */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dockerClient } from '../../../client/src/engine/docker/client';
import { LABELS } from '../../../client/src/engine/docker/types';

export const REPO_ROOT = join(__dirname, '..', '..', '..');
export const FAULTS_ENV = join(REPO_ROOT, 'test', 'fixtures', 'faults', 'env.py');
export const PORT_SPOOF_ENV = join(REPO_ROOT, 'test', 'fixtures', 'python', 'port_spoof', 'env.py');

const SCRATCH = mkdtempSync(join(tmpdir(), 'hs-faults-'));
process.on('exit', () => rmSync(SCRATCH, { recursive: true, force: true }));

export function scratch(prefix: string): string {
  return mkdtempSync(join(SCRATCH, prefix));
}

export interface Measured {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  maxRssMb: number;
}

/** One CLI invocation of the suite: `run` (or `eval`) of a task with a fixed answer or a command agent. */
export interface CliRun {
  /** A task of the fault fixture (test/fixtures/faults/env.py), or of `env` when given. */
  task?: string;
  /** Another environment's env.py; without `task`, every task it has. */
  env?: string;
  /** The fixed agent's answer. */
  answer?: string;
  /** A shell command the command agent runs; what it prints last is the answer. */
  command?: string;
  runtime: 'docker' | 'local';
  traceDir: string;
  /** `eval` (a job, with its summary) instead of `run`. */
  eval?: boolean;
  /** The human output instead of `--json`. */
  human?: boolean;
  /** Further options, e.g. `['--call-timeout', '2']`. */
  more?: readonly string[];
}

export function cliArgs(r: CliRun): string[] {
  const env = r.env ?? FAULTS_ENV;
  return [
    r.eval ? 'eval' : 'run',
    r.task === undefined ? env : `${env}::${r.task}`,
    ...(r.command === undefined ? [] : ['--agent', 'command', '--command', r.command]),
    ...(r.answer === undefined ? [] : ['--answer', r.answer]),
    ...(r.more ?? []),
    '--runtime',
    r.runtime,
    '--trace-dir',
    r.traceDir,
    ...(r.human ? [] : ['--json']),
  ];
}

export function spawnMeasured(run: CliRun): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'measuredCli.ts'), ...cliArgs(run)], {
    cwd: REPO_ROOT,
    env: { ...process.env, FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export function measured(child: ChildProcess): Promise<Measured> {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (t: string) => (stdout += t));
  child.stderr?.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  return new Promise((resolve) =>
    child.on('close', (code) => {
      const m = /HUD_MEASURE (\{.*\})\s*$/.exec(stderr);
      const figures = m ? (JSON.parse(m[1]!) as { ms: number; maxRssMb: number }) : { ms: NaN, maxRssMb: NaN };
      resolve({ code, stdout, stderr, ms: figures.ms, maxRssMb: figures.maxRssMb });
    }),
  );
}

export function runMeasured(run: CliRun): Promise<Measured> {
  return measured(spawnMeasured(run));
}

/** Containers of ours still present (running or not) whose owner is `pid`. */
export async function containersOwnedBy(pid: number): Promise<string[]> {
  const list = await dockerClient().listContainers({ all: true, filters: { label: [`${LABELS.ownerPid}=${pid}`] } });
  return list.map((c) => c.Id);
}

/** Processes whose command line mentions `needle` (a unique path of the test), excluding zombies. */
export function processesMentioning(needle: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (cmd.includes(needle) && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z') found.push(Number(name));
    } catch {
      // exited while we looked
    }
  }
  return found;
}

export function assertJsonRun(r: Measured): Record<string, unknown> {
  const start = r.stdout.indexOf('{');
  assert.ok(start >= 0, `no JSON on stdout:\n${r.stdout}\n${r.stderr.slice(-2000)}`);
  return JSON.parse(r.stdout.slice(start)) as Record<string, unknown>;
}

/** The JSON result of a run that exited 0 with reward 1; `what` starts the failure messages. */
export function assertRewarded(r: Measured, what = ''): Record<string, unknown> {
  assert.equal(r.code, 0, `${what}${r.stderr.slice(-2000)}`);
  const json = assertJsonRun(r);
  assert.equal(json['reward'], 1, `${what}reward`);
  return json;
}
