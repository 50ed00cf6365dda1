/**
 * A task file whose rows do not all fit their templates: as under the SDK,
 * each such row's run fails alone (actor phase, no reward) and the file's
 * other rows run (docs/engine.md, "Task files").
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JobSummary } from '../../../client/src/engine/job';
import { readTrace } from '../../../client/src/engine/trace/store';
import { scratchDir } from '../engine-local/rules';
import { cli } from './cliHarness';

const ENV_PY = `from hud import Environment

env = Environment(name="rows")


@env.template()
async def echo(word: str, *, times: int = 1):
    answer = yield "say " + " ".join([word] * times)
    yield 1.0 if answer == word else 0.0
`;

const ROWS = [
  { env: 'rows', id: 'echo', args: { word: 'secret' } },
  { env: 'rows', id: 'echo', args: {} },
  { env: 'rows', id: 'echo', args: { word: 'secret', loud: true } },
  { env: 'rows', id: 'shout', args: {} },
  { env: 'rows', id: 'echo', args: { word: 'secret', times: 2 } },
];

/** The rows that cannot run, by index: the line and the reason each error must name. */
const BAD: Record<number, RegExp> = {
  1: /tasks\.jsonl:2: row 1: template 'echo' \(env 'rows'\): missing a required argument: 'word'/,
  2: /tasks\.jsonl:3: row 2: template 'echo' \(env 'rows'\): unexpected argument\(s\) 'loud'/,
  3: /tasks\.jsonl:4: row 3: environment 'rows' has no template 'shout' \(templates: echo\)/,
};

function mixedFile(): { dir: string; tasks: string } {
  const dir = scratchDir('hs-rows-');
  writeFileSync(join(dir, 'env.py'), ENV_PY);
  const tasks = join(dir, 'tasks.jsonl');
  writeFileSync(tasks, ROWS.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return { dir, tasks };
}

describe('task-file rows that do not fit their templates', () => {
  test('eval runs every row: the bad ones fail alone, with traces and a summary that says which row and why', async () => {
    const { dir, tasks } = mixedFile();
    const traceDir = join(dir, 'traces');
    const r = await cli(['eval', tasks, '--answer', 'secret', '--runtime', 'local', '--trace-dir', traceDir, '--json']);
    assert.equal(r.code, 1, r.stderr);
    const s = JSON.parse(r.stdout) as JobSummary;
    assert.deepEqual([s.total, s.completed, s.errored, s.loadErrors.length], [5, 2, 3, 0]);
    assert.deepEqual(s.errorsByPhase, { setup: 0, actor: 3, verifier: 0 });
    assert.equal(s.meanReward, 0.4, 'two good rows earn 1 each; the three failed runs count as 0');
    assert.deepEqual(
      s.tasks.map((t) => t.ref),
      ROWS.map((_, i) => `${tasks}::${i}`),
    );
    for (const [i, t] of s.tasks.entries()) {
      const run = t.runs[0]!;
      assert.ok(run.trace && existsSync(run.trace), `row ${i}: a trace is written`);
      const trace = readTrace(run.trace);
      const bad = BAD[i];
      if (bad) {
        assert.deepEqual([run.status, run.reward, run.error?.phase], ['error', null, 'actor'], `row ${i}`);
        assert.match(run.error?.message ?? '', bad);
        assert.equal(trace.status, 'error');
        assert.match(trace.error?.message ?? '', bad);
        assert.equal(trace.prompt ?? null, null, `row ${i}: no prompt was given`);
      } else {
        assert.deepEqual([run.status, run.reward], ['completed', 1], `row ${i}: ${run.error?.message}`);
      }
      // The trace records the row as written, slug included, whether it ran or not.
      assert.deepEqual([trace.task.id, trace.task.args], [ROWS[i]!.id, ROWS[i]!.args]);
      assert.match(trace.task.slug, new RegExp(`^${ROWS[i]!.id}(-[0-9a-f]{8})?$`));
    }
    // The job's summary file says the same.
    const written = JSON.parse(readFileSync(s.summaryPath!, 'utf8')) as JobSummary;
    assert.match(written.tasks[2]!.runs[0]!.error?.message ?? '', BAD[2]!);
  });

  test('eval in words: each failed row is printed with its line and reason, and counted', async () => {
    const { dir, tasks } = mixedFile();
    const r = await cli(['eval', tasks, '--answer', 'secret', '--runtime', 'local', '--trace-dir', join(dir, 't')]);
    assert.equal(r.code, 1);
    for (const bad of Object.values(BAD)) assert.match(r.stdout, new RegExp(`error in actor: \\S*${bad.source}`));
    assert.match(r.stdout, /5 runs: 2 completed, 3 errored, 0 cancelled/);
    assert.match(r.stdout, /errors by phase: setup 0, actor 3, verifier 0/);
  });

  test('run: a bad row fails in the actor phase (exit 1); a good row of the same file completes', async () => {
    const { dir, tasks } = mixedFile();
    const traceDir = join(dir, 'traces');
    const runRow = (row: number) =>
      cli(['run', `${tasks}::${row}`, '--answer', 'secret', '--runtime', 'local', '--trace-dir', traceDir, '--json']);
    const bad = await runRow(2);
    assert.equal(bad.code, 1, bad.stderr);
    const failed = JSON.parse(bad.stdout) as {
      status: string;
      reward: null;
      error: { phase: string; message: string };
    };
    assert.deepEqual([failed.status, failed.reward, failed.error.phase], ['error', null, 'actor']);
    assert.match(failed.error.message, BAD[2]!);

    const good = await runRow(4);
    assert.equal(good.code, 0, good.stdout);
    assert.deepEqual((JSON.parse(good.stdout) as { status: string; reward: number }).reward, 1);
  });

  test('a row that is not JSON still refuses the whole file, as the SDK does', async () => {
    const { dir, tasks } = mixedFile();
    writeFileSync(tasks, `${JSON.stringify(ROWS[0])}\n{not json\n`);
    const r = await cli([
      'eval',
      tasks,
      '--answer',
      'secret',
      '--runtime',
      'local',
      '--trace-dir',
      join(dir, 't'),
      '--json',
    ]);
    assert.equal(r.code, 1);
    const s = JSON.parse(r.stdout) as JobSummary;
    assert.equal(s.total, 0);
    assert.match(s.loadErrors[0]?.message ?? '', /tasks\.jsonl:2: .*not valid JSON/);
  });
});
