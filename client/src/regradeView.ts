/**
 * What the editor shows about regrades: the delta of one rollout as a line
 * (`0.40 -> 1.00 up`), its subscores, and the summary of a batch. Plain text
 * decisions without VS Code, shared by the inline results, the Runs view and
 * the output (docs/grader-workbench.md, "In the editor").
 */
import { formatScore } from './engine/grade';
import type { IndexedTemplate, WorkspaceIndex } from '../../common/lspMessages';
import { type GradeDelta, type RegradeSummary, formatChange, summarise } from './engine/regrade/delta';
import type { InlineResult } from './inlineResults';
import { mdEscape } from './outcome';
import { groupBy } from './groupBy';
import { findTask, taskKey, templateOfTask, verifierOfTask } from './taskLookup';

/** `0.40 -> 1.00 up`, `0.50 -> 0.50 unchanged`. */
export function deltaText(d: GradeDelta): string {
  return `${formatChange(d.before, d.after)} ${d.direction}`;
}

/** `correct 0.00 -> 1.00, tidy 1.00 -> -`: the subscores that moved, or '' when none did. */
export function subscoreDeltaText(d: GradeDelta): string {
  return d.subscores.map((s) => `${s.name} ${formatChange(s.before, s.after)}`).join(', ');
}

/** One rollout's regrade in a line: the reward's change, then the subscores that moved. */
export function deltaLine(d: GradeDelta): string {
  const subs = subscoreDeltaText(d);
  return subs ? `${deltaText(d)} (${subs})` : deltaText(d);
}

/** `3 regraded: 1 up, 0 down, 2 unchanged; mean 0.33 -> 0.67`. */
export function summaryText(s: RegradeSummary): string {
  const mean = (x: number | null): string => (x === null ? '-' : formatScore(x));
  const failed = s.failed ? `, ${s.failed} not regraded` : '';
  const regraded = s.total - s.failed;
  return (
    `${regraded} regraded: ${s.up} up, ${s.down} down, ${s.unchanged} unchanged${failed}; ` +
    `mean ${mean(s.meanBefore)} -> ${mean(s.meanAfter)}`
  );
}

/** The CodeLens title over a template: how many stored rollouts its grader can be run on again. */
export function regradeLensTitle(count: number): string {
  return `Regrade ${count} stored ${count === 1 ? 'run' : 'runs'}`;
}

/** One regraded rollout as the editor reports it. */
export interface RegradedRun {
  ref: string;
  /** The task's file, when known: two workspace folders' tasks may share the reference. */
  uri?: string;
  delta: GradeDelta | null;
  error?: string;
}

/**
 * Inline text after a regrade: on each task's line its change (or the
 * summary of its rollouts), and on the grading yield of each template (and
 * verifier) that graded them, the summary over all of its tasks. A task's
 * line where VS Code's Testing message is drawn (`testingHolds`, see
 * TestingTaskLines in ./inlineResults.ts) is left to it, as after a run;
 * the template's line still carries the change.
 */
export function regradeInlineResults(
  index: WorkspaceIndex,
  runs: RegradedRun[],
  /** By taskKey (./taskLookup.ts). */
  testingHolds: (task: string) => boolean = () => false,
): InlineResult[] {
  const out: InlineResult[] = [];
  const byTask = groupBy(runs, (r) => taskKey(r.ref, r.uri ?? ''));
  const byTemplate = new Map<IndexedTemplate, RegradedRun[]>();
  for (const rs of byTask.values()) {
    const { ref, uri } = rs[0]!;
    const task = findTask(index.tasks, ref, uri);
    if (!task) continue;
    out.push({
      uri: task.uri,
      line: task.range.start.line,
      ...texts(rs, ref),
      ...(testingHolds(taskKey(ref, task.uri)) ? { drawnBy: 'testing' as const } : {}),
    });
    const graders = [templateOfTask(index, task), verifierOfTask(index, task)];
    for (const g of graders) if (g?.gradeYieldRange) byTemplate.set(g, [...(byTemplate.get(g) ?? []), ...rs]);
  }
  for (const [tpl, rs] of byTemplate) {
    const line = tpl.gradeYieldRange!.start.line;
    if (out.some((o) => o.uri === tpl.uri && o.line === line)) continue;
    out.push({ uri: tpl.uri, line, ...texts(rs, `${tpl.env}/${tpl.id}`) });
  }
  return out;
}

function texts(rs: RegradedRun[], label: string): { text: string; hover: string } {
  const only = rs.length === 1 ? rs[0]! : undefined;
  const text = only
    ? `regrade: ${only.delta ? deltaLine(only.delta) : `not regraded (${only.error ?? 'unknown reason'})`}`
    : `regrade: ${summaryText(summarise(rs.map((r) => r.delta)))}`;
  const rows = rs.map((r) =>
    r.delta ? `- ${mdEscape(deltaLine(r.delta))}` : `- not regraded: ${mdEscape(r.error ?? 'unknown reason')}`,
  );
  return { text, hover: [`**Regrade** · ${mdEscape(label)}`, '', ...rows].join('\n') };
}
