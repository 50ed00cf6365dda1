/**
 * Fuzz: task.toml, task files, traces and env.py sources that are truncated,
 * not UTF-8, huge, deeply nested or of the wrong types go through the real
 * parsers and the language server's analysis without throwing; parsers
 * answer with an error that says where.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import fc from 'fast-check';
import { parseTaskToml } from '../../../common/harbor/taskToml';
import { extractJsonTasks } from '../../../server/src/analysis/jsonTasks';
import { parseTrace } from '../../../common/trace/schema';
import { readTrace } from '../../../client/src/engine/trace/store';
import { HudStudioError } from '../../../client/src/engine/errors';
import { loadTrace } from '../../../media/src/explorer/load';
import { workspace } from '../server/helpers';
import { anyJson, halfTyped, mutated, params } from './arbitraries';

const FIXTURES = join(__dirname, '..', '..', 'fixtures');
const SCRATCH = mkdtempSync(join(tmpdir(), 'hs-fuzz-'));
after(() => rmSync(SCRATCH, { recursive: true, force: true }));

const TASK_TOML = readFileSync(join(FIXTURES, 'harbor', 'shared-basic', 'task.toml'), 'utf8');
const TRACE = readFileSync(join(FIXTURES, 'traces', 'injected.hudtrace.json'), 'utf8');
const ENV_PY = readFileSync(join(FIXTURES, 'python', 'verifier_two_env', 'env.py'), 'utf8');
/**
 * Real modules of the shapes the index reads (templates, tasks, loops, verifiers on two environments; every
 * module-level shape in index_shapes).
 */
const PYTHON_FIXTURES = [
  'verifier_two_env/env.py',
  'verifier_same_env/env.py',
  'protocol/env.py',
  'sdk_surface/env.py',
  'index_shapes/env.py',
];
const TASKS_JSONL =
  '{"env": "workspace", "id": "solve", "args": {"x": 1}}\n{"env": "judge", "id": "verify", "args": {}}\n';

test('task.toml: any mutation parses or fails with located errors', () => {
  fc.assert(
    fc.property(mutated(TASK_TOML), (bytes) => {
      const r = parseTaskToml(bytes.toString('utf8'));
      if (!r.ok) {
        assert.ok(r.errors.length > 0);
        for (const e of r.errors) assert.ok(e.line >= 1 && e.column >= 1 && e.message.length > 0, JSON.stringify(e));
      }
    }),
    params(300, 8),
  );
});

test('task.toml: tables of the wrong types are errors, not crashes', () => {
  fc.assert(
    fc.property(
      fc.dictionary(fc.constantFrom('verifier', 'agent', 'environment', 'metadata', 'solution'), anyJson),
      (tables) => {
        const text = Object.entries(tables)
          .map(([k, v]) => `${k} = ${JSON.stringify(v) ?? '""'}`)
          .join('\n');
        parseTaskToml(text);
      },
    ),
    params(200, 5),
  );
});

test('task files (.json/.jsonl): any mutation is analysed without throwing', () => {
  fc.assert(
    fc.property(
      fc.oneof(mutated(TASKS_JSONL), mutated(`[${TASKS_JSONL.trim().split('\n').join(',')}]`)),
      fc.boolean(),
      (bytes, jsonl) => {
        extractJsonTasks(bytes.toString('utf8'), jsonl ? 'tasks.jsonl' : 'tasks.json');
      },
    ),
    params(300, 8),
  );
});

test('traces: any mutation is rejected with a reason or accepted, never thrown', () => {
  let n = 0;
  fc.assert(
    fc.property(mutated(TRACE), (bytes) => {
      const text = bytes.toString('utf8');
      const loaded = loadTrace(text);
      if (!loaded.ok) assert.ok(loaded.error.length > 0);
      const path = join(SCRATCH, `t${n++}.hudtrace.json`);
      writeFileSync(path, bytes);
      try {
        readTrace(path);
      } catch (err) {
        assert.ok(err instanceof HudStudioError, String(err));
        assert.equal(err.location?.file, path, 'the error names the file');
      }
    }),
    params(200, 8),
  );
});

test('traces: wrong types in every field are schema errors', () => {
  const base = JSON.parse(TRACE) as Record<string, unknown>;
  fc.assert(
    fc.property(fc.constantFrom(...Object.keys(base)), anyJson, (key, value) => {
      const r = parseTrace({ ...base, [key]: value });
      if (!r.ok) assert.ok(r.error.length > 0);
    }),
    params(300, 5),
  );
});

test('env.py: any mutation goes through the whole analysis without throwing', async () => {
  const ws = await workspace({});
  const path = ws.path('env.py');
  fc.assert(
    fc.property(mutated(ENV_PY), (bytes) => {
      ws.analyzer.setFile(path, bytes.toString('utf8'));
      ws.analyzer.workspace.problems(path);
      ws.analyzer.workspace.index();
    }),
    params(200, 10),
  );
});

test('env.py: half-typed lines (open brackets, stray closers, quotes) in any fixture are analysed to the end', async () => {
  const sources = PYTHON_FIXTURES.map((f) => readFileSync(join(FIXTURES, 'python', f), 'utf8'));
  const ws = await workspace({});
  const path = ws.path('env.py');
  fc.assert(
    fc.property(
      fc.nat({ max: sources.length - 1 }).chain((i) => halfTyped(sources[i]!)),
      (text) => {
        ws.analyzer.setFile(path, text);
        ws.analyzer.workspace.problems(path);
        ws.analyzer.workspace.index();
      },
    ),
    params(400, 15),
  );
});

test('env.py: the real discovery reports a located error or the tasks, never a crash', () => {
  const dir = join(SCRATCH, 'discover');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'env.py');
  const runtime = join(__dirname, '..', '..', '..', 'runtime', 'python');
  fc.assert(
    fc.property(
      fc.oneof(mutated(ENV_PY), fc.constant(Buffer.from(`x = ${'('.repeat(5000)}1${')'.repeat(5000)}\n`))),
      (bytes) => {
        writeFileSync(file, bytes);
        const r = spawnSync('python3', ['-m', 'hud_studio.discover', file, '--json'], {
          env: { ...process.env, PYTHONPATH: runtime },
          encoding: 'utf8',
          timeout: 30_000,
        });
        const report = JSON.parse(r.stdout) as { tasks: unknown[]; error: { file: string; message: string } | null };
        if (report.error) assert.ok(report.error.message.length > 0 && report.error.file.length > 0, r.stdout);
        else assert.ok(Array.isArray(report.tasks));
      },
    ),
    params(20, 10),
  );
});
