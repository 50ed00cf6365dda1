/**
 * HUD Studio's own trace files end in `.json` but are never task files: the
 * language server neither lists nor reads them (a rollout writes one at
 * every run, sometimes of megabytes, and the watcher reports each).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Analyzer, fileKind } from '../../../server/src/analysis/analyzer';
import { listIndexableFiles } from '../../../server/src/analysis/scan';
import { REPO } from './helpers';

test('trace files are not indexed, while task rows in other JSON files are', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hs-traces-'));
  try {
    const traces = join(dir, '.hud-studio', 'traces');
    mkdirSync(traces, { recursive: true });
    const trace = join(traces, '20261206-solve-r1.hudtrace.json');
    writeFileSync(trace, readFileSync(join(REPO, 'test', 'fixtures', 'traces', 'completed.hudtrace.json')));
    const rows = join(dir, 'tasks.json');
    writeFileSync(rows, JSON.stringify([{ env: 'workspace', id: 'solve', args: {} }]));

    assert.equal(fileKind(trace), undefined);
    assert.equal(fileKind(rows), 'json');
    assert.deepEqual(await listIndexableFiles([dir]), [rows]);

    // Nor does a change the watcher reports make one a file of the index.
    const a = await Analyzer.create({ roots: [dir] });
    a.setFile(trace, readFileSync(trace));
    a.setFile(rows, readFileSync(rows));
    assert.deepEqual([...a.workspace.paths()], [rows]);
    a.dispose();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
