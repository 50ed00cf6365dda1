/**
 * Runs the Testing view's golden items through the grading path only
 * (docs/grader-workbench.md): a golden row's answer goes to its task's first
 * yield, a Harbor golden solution runs in place of the oracle's; no agent,
 * no trace. Rows are read from disk at run time, so an edit since the last
 * index counts.
 */
import { dirname } from 'node:path';
import * as vscode from 'vscode';
import { readGolden } from '../engine/golden/file';
import { readHarborGolden, solutionLabel } from '../../../common/golden/solutions';
import { runHarborSolution } from '../engine/golden/harbor';
import { describeOutcome, runGoldenRow, type GoldenOutcome } from '../engine/golden/run';
import { errorMessage } from '../engine/errors';
import type { GoldenTarget } from '../goldenTree';
import type { Runner } from './runner';

export interface GoldenRunRequest {
  targets: { id: string; target: GoldenTarget }[];
  token: vscode.CancellationToken;
  onStarted(id: string): void;
  onFinished(id: string, outcome: GoldenOutcome): void;
}

export type GoldenRunResult = { ran: true } | { ran: false; reason: string };

export async function runGoldenItems(runner: Runner, req: GoldenRunRequest): Promise<GoldenRunResult> {
  const first = req.targets[0];
  if (!first) return { ran: false, reason: 'no golden answers to run' };
  const prepared = await runner.prepareGrading(uriOf(first.target));
  if (!prepared.ok) return { ran: false, reason: prepared.reason };
  const { folder, settings, runtime, credentials, log } = prepared;
  const abort = new AbortController();
  const sub = req.token.onCancellationRequested(() => abort.abort());
  const cwd = folder.uri.fsPath;
  try {
    for (const { id, target } of req.targets) {
      if (abort.signal.aborted) break;
      req.onStarted(id);
      const context = { selected: runtime.selected, signal: abort.signal };
      let outcome: GoldenOutcome;
      try {
        if (target.kind === 'row') {
          const file = readGolden(vscode.Uri.parse(target.uri).fsPath);
          const row = file.rows.find((r) => r.line === target.line);
          if (!row)
            throw new Error(`line ${target.line} of ${file.path} is no longer a golden row (refresh the tests)`);
          outcome = await runGoldenRow(file, row, {
            cwd,
            runtime: runtime.runtime,
            context,
            request: {
              dockerHost: runtime.dockerHost,
              credentials,
              sdk: settings.sdk,
              limits: { rolloutMs: settings.timeouts.rolloutSeconds * 1000 },
            },
          });
        } else {
          const golden = readHarborGolden(dirname(vscode.Uri.parse(target.taskUri).fsPath));
          const s = golden.solutions.find((x) => solutionLabel(x) === target.solution);
          if (!s) throw new Error(`${target.solution} is no longer a golden solution (refresh the tests)`);
          outcome = await runHarborSolution(golden, s, { cwd, context, dockerHost: runtime.dockerHost });
        }
      } catch (err) {
        outcome = unreadable(target, errorMessage(err));
      }
      log(`golden ${describeOutcome({ path: uriOf(target) }, outcome)}`);
      req.onFinished(id, outcome);
    }
  } finally {
    sub.dispose();
  }
  return { ran: true };
}

function uriOf(t: GoldenTarget): string {
  return t.kind === 'row' ? t.uri : t.taskUri;
}

function unreadable(t: GoldenTarget, error: string): GoldenOutcome {
  const task = t.kind === 'row' ? `line ${t.line}` : t.solution;
  return {
    row: { task, answer: null, expect: 1, line: t.kind === 'row' ? t.line : 1 },
    ref: uriOf(t),
    passed: false,
    expected: '',
    reward: null,
    subscores: [],
    result: null,
    error,
  };
}
