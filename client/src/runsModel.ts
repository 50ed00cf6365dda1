/**
 * The Runs view's model: jobs -> rollouts -> phases -> subscores. Each
 * rollout is its trace, folded from live events by the engine's fold (or read
 * from a stored trace for past runs), so the view, the explorer and the file
 * agree. Plain data and plain rendering decisions (labels, icons, badges), so
 * the tree provider is a thin adapter and all of this is unit-tested without
 * VS Code.
 */
import type { RolloutEvent } from '../../common/events';
import { foldRolloutEvent } from '../../common/trace/fold';
import type { PhaseName, RunningTrace, ServingSdk, SubScoreT, Trace, TracePhase } from '../../common/trace/schema';
import { markNoAnswer } from './engine/outcome';
import { traceFolder, traceFolderOf } from './storedTraces';
import { type GradeDelta, summarise } from './engine/regrade/delta';
import { deltaLine, deltaText, summaryText } from './regradeView';
import { type Staleness, isStale, staleText } from './templateSource';
import {
  type RolloutOutcome,
  type ShownOutcome,
  inlineText,
  outcomeFromEvent,
  outcomeFromTrace,
  score,
  verdictIcon,
} from './outcome';

/**
 * A task's last outcome is kept by its reference and the trace folder its
 * trace went to, which tells two workspace folders' tasks of one reference
 * apart (traceFolderOf, ./storedTraces.ts); a run that wrote no trace has
 * none (`''`).
 */
export function outcomeKey(ref: string, traceDir: string | undefined): string {
  return `${traceDir ? traceFolder(traceDir) : ''}\u0000${ref}`;
}

export interface RolloutRecord {
  id: string;
  jobId: string;
  /** The rollout as folded so far; logs are left out (the explorer holds them). */
  trace: RunningTrace;
  /** Queued until the engine says it started. */
  status: RunningTrace['status'] | 'queued';
  outcome?: RolloutOutcome;
  tracePath?: string;
  /** Set when this rollout graded a stored one again (docs/grader-workbench.md). */
  regrade?: RegradeInfo;
}

export interface RegradeInfo {
  /** The stored rollout whose answer was graded again, and its trace file. */
  of: string;
  originalPath: string;
  /** Null when the regrade did not finish; `error` says why. */
  delta: GradeDelta | null;
  error?: string;
}

export interface JobRecord {
  id: string;
  label: string;
  startedAt: string;
  rollouts: string[];
}

export type RunsNode =
  | { kind: 'job'; jobId: string }
  | { kind: 'rollout'; rolloutId: string }
  | { kind: 'phase'; rolloutId: string; phase: PhaseName }
  | { kind: 'subscore'; rolloutId: string; path: number[]; phase?: PhaseName }
  | { kind: 'error'; rolloutId: string };

/** Icon ids are VS Code codicons; colours are theme colour ids. */
export interface NodeView {
  label: string;
  description?: string;
  tooltip?: string;
  icon: { id: string; color?: string };
  contextValue: string;
  collapsible: 'none' | 'collapsed' | 'expanded';
  /** Stable id so the tree keeps expansion state across refreshes. */
  id: string;
}

const MAX_JOBS = 50;

export class RunsModel {
  private readonly jobs = new Map<string, JobRecord>();
  private readonly rollouts = new Map<string, RolloutRecord>();
  private readonly listeners = new Set<() => void>();
  /** hudStudio.passThreshold: the same verdict as the Testing view (see outcome.ts verdict). */
  private threshold = 1;
  /** Which graders of a stored rollout changed since it ran; the extension reads the current files. */
  private stalenessOf: (t: RunningTrace) => Staleness | undefined = () => undefined;
  /** {@link staleRows} when the view last re-rendered for staleness. */
  private staleShown = '';

  constructor(private readonly clock: () => number = Date.now) {}

  setThreshold(threshold: number): void {
    if (threshold === this.threshold) return;
    this.threshold = threshold;
    this.changed();
  }

  /**
   * Sets how staleness is judged (the index, and so the current templates,
   * changed) and re-renders when a row's staleness changed. Only then: VS
   * Code forgets the rows of a tree that redraws until it has asked for them
   * again, and a context menu command that lands meanwhile gets no row. The
   * index changes at every trace written and every keystroke.
   */
  setStaleness(fn: (t: RunningTrace) => Staleness | undefined): void {
    this.stalenessOf = fn;
    const shown = this.staleRows();
    if (shown === this.staleShown) return;
    this.staleShown = shown;
    this.changed();
  }

  /** Which rows are stale and why, as one comparable string. */
  private staleRows(): string {
    let rows = '';
    for (const r of this.rollouts.values()) {
      const s = this.staleness(r.id);
      if (s) rows += `${r.id} ${staleText(s)}\n`;
    }
    return rows;
  }

  /** The staleness of a finished rollout, or undefined when it is current (or still running). */
  staleness(rolloutId: string): Staleness | undefined {
    const r = this.rollouts.get(rolloutId);
    if (!r?.outcome) return undefined;
    const s = this.stalenessOf(r.trace);
    return s && isStale(s) ? s : undefined;
  }

  onChange(l: () => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
  private changed(): void {
    for (const l of this.listeners) l();
  }

  /** Declares a job (one user action) before its rollouts are queued, so it gets a readable label. */
  startJob(id: string, label: string): void {
    const startedAt = new Date(this.clock()).toISOString();
    if (!this.jobs.has(id))
      this.jobs.set(id, { id, label: `${label} · ${clockTime(startedAt)}`, startedAt, rollouts: [] });
    this.trim();
    this.changed();
  }

  job(id: string): JobRecord | undefined {
    return this.jobs.get(id);
  }
  rollout(id: string): RolloutRecord | undefined {
    return this.rollouts.get(id);
  }

  /** Jobs newest first. */
  jobList(): JobRecord[] {
    return [...this.jobs.values()].reverse();
  }

  /** Latest outcome per task reference and trace folder (outcomeKey), for the Environments view. */
  lastOutcomes(): Map<string, RolloutOutcome> {
    const out = new Map<string, RolloutOutcome>();
    for (const r of this.rollouts.values())
      if (r.outcome) out.set(outcomeKey(r.trace.task.ref, r.tracePath && traceFolderOf(r.tracePath)), r.outcome);
    return out;
  }

  runningCount(): number {
    let n = 0;
    for (const r of this.rollouts.values()) if (r.status === 'running' || r.status === 'queued') n++;
    return n;
  }

  apply(e: RolloutEvent): void {
    const known = this.rollouts.get(e.rolloutId);
    const r = known ?? this.newRollout(e);
    if (!r) return;
    // Log lines change nothing this view shows; holding them would double the explorer's memory.
    if (known) r.trace = foldRolloutEvent(r.trace, e, { onLog: () => undefined }) ?? r.trace;
    if (e.type === 'log') return;
    if (e.type === 'rollout.started') r.status = 'running';
    if (e.type === 'rollout.ended') {
      r.status = e.status;
      r.outcome = markNoAnswer(outcomeFromEvent(e, r.trace.task.ref), r.trace);
      if (e.tracePath) r.tracePath = e.tracePath;
    }
    this.changed();
  }

  /**
   * Adds a finished rollout read from a trace file (history from earlier
   * sessions), grouped by task the way the Inspect extension lists its logs.
   */
  addTrace(t: Trace, tracePath: string): void {
    if (this.rollouts.has(t.rolloutId)) return;
    const jobId = `history:${t.task.ref}`;
    const job = this.jobOf(jobId, `${labelOfRef(t.task.ref)} · earlier runs`, t.startedAt);
    job.rollouts.push(t.rolloutId);
    job.rollouts.sort((a, b) =>
      (this.rollouts.get(a)?.trace.startedAt ?? t.startedAt).localeCompare(
        this.rollouts.get(b)?.trace.startedAt ?? t.startedAt,
      ),
    );
    const outcome = outcomeFromTrace(t, tracePath);
    this.rollouts.set(t.rolloutId, { id: t.rolloutId, jobId, trace: t, status: t.status, outcome, tracePath });
    this.trim();
    this.changed();
  }

  /**
   * Records a finished regrade: its trace (written with `regrade.of`) and the
   * change from the stored rollout. The rollout may already be in the job from
   * the engine's live events, or not (then it is added).
   */
  addRegrade(jobId: string, t: Trace, tracePath: string | undefined, info: RegradeInfo): void {
    let r = this.rollouts.get(t.rolloutId);
    if (!r) {
      this.jobOf(jobId, 'Regrade', t.startedAt).rollouts.push(t.rolloutId);
      r = { id: t.rolloutId, jobId, trace: t, status: t.status };
      this.rollouts.set(t.rolloutId, r);
    }
    r.trace = t;
    r.status = t.status;
    r.outcome = outcomeFromTrace(t, tracePath);
    if (tracePath) r.tracePath = tracePath;
    r.regrade = info;
    this.trim();
    this.changed();
  }

  /**
   * The run to compare this one with: for a regrade, the stored rollout it
   * graded again; else the run of the same task just before it that has a
   * trace file ("Compare with Previous Run").
   */
  previousOf(rolloutId: string): Pick<RolloutRecord, 'id' | 'tracePath'> | undefined {
    const r = this.rollouts.get(rolloutId);
    if (!r) return undefined;
    if (r.regrade) return { id: r.regrade.of, tracePath: r.regrade.originalPath };
    let best: RolloutRecord | undefined;
    for (const o of this.rollouts.values()) {
      if (o.id === r.id || !o.tracePath || o.regrade || o.trace.task.ref !== r.trace.task.ref) continue;
      if (o.trace.startedAt >= r.trace.startedAt) continue;
      if (!best || o.trace.startedAt > best.trace.startedAt) best = o;
    }
    return best;
  }

  /**
   * Rollouts a command can act on when no Runs row came with it, newest
   * first: those that ended, and with `withTrace` only those with a trace file.
   */
  finished(withTrace: boolean): RolloutRecord[] {
    return [...this.rollouts.values()]
      .filter((r) => r.outcome && (!withTrace || r.tracePath))
      .sort((a, b) => b.trace.startedAt.localeCompare(a.trace.startedAt));
  }

  clearFinished(): void {
    for (const [id, j] of this.jobs) {
      const live = j.rollouts.some((rid) => {
        const s = this.rollouts.get(rid)?.status;
        return s === 'running' || s === 'queued';
      });
      if (live) continue;
      for (const rid of j.rollouts) this.rollouts.delete(rid);
      this.jobs.delete(id);
    }
    this.changed();
  }

  private newRollout(e: RolloutEvent): RolloutRecord | undefined {
    const trace = foldRolloutEvent(null, e);
    if (!trace) return undefined;
    const jobId = trace.jobId ?? `rollout:${e.rolloutId}`;
    this.jobOf(jobId, labelOfRef(trace.task.ref), e.at).rollouts.push(e.rolloutId);
    const status = e.type === 'rollout.started' ? 'running' : 'queued';
    const r: RolloutRecord = { id: e.rolloutId, jobId, trace, status };
    this.rollouts.set(e.rolloutId, r);
    this.trim();
    return r;
  }

  private jobOf(id: string, label: string, startedAt: string): JobRecord {
    let job = this.jobs.get(id);
    if (!job) {
      job = { id, label, startedAt, rollouts: [] };
      this.jobs.set(id, job);
    }
    return job;
  }

  private trim(): void {
    while (this.jobs.size > MAX_JOBS) {
      const oldest = this.jobs.keys().next().value as string;
      for (const rid of this.jobs.get(oldest)!.rollouts) this.rollouts.delete(rid);
      this.jobs.delete(oldest);
    }
  }

  // ---- rendering -------------------------------------------------------

  children(node?: RunsNode): RunsNode[] {
    if (!node) return this.jobList().map((j) => ({ kind: 'job', jobId: j.id }));
    switch (node.kind) {
      case 'job':
        return (this.jobs.get(node.jobId)?.rollouts ?? []).map((rolloutId) => ({ kind: 'rollout', rolloutId }));
      case 'rollout': {
        const r = this.rollouts.get(node.rolloutId);
        if (!r) return [];
        const out: RunsNode[] = [];
        if (r.outcome?.error || r.status === 'error') out.push({ kind: 'error', rolloutId: r.id });
        for (const p of r.trace.phases) out.push({ kind: 'phase', rolloutId: r.id, phase: p.name });
        return out;
      }
      case 'phase': {
        const p = this.rollouts.get(node.rolloutId)?.trace.phases.find((x) => x.name === node.phase);
        return subscoresOf(p).map((_, i) => ({
          kind: 'subscore',
          rolloutId: node.rolloutId,
          phase: node.phase,
          path: [i],
        }));
      }
      case 'subscore': {
        const s = this.subscoreAt(node);
        return (s?.children ?? []).map((_, i) => ({ ...node, path: [...node.path, i] }));
      }
      case 'error':
        return [];
    }
  }

  private subscoreAt(node: Extract<RunsNode, { kind: 'subscore' }>): SubScoreT | undefined {
    const p = this.rollouts.get(node.rolloutId)?.trace.phases.find((x) => x.name === node.phase);
    let list = subscoresOf(p);
    let s: SubScoreT | undefined;
    for (const i of node.path) {
      s = list[i];
      list = s?.children ?? [];
    }
    return s;
  }

  view(node: RunsNode): NodeView {
    switch (node.kind) {
      case 'job': {
        const j = this.jobs.get(node.jobId);
        const rs = (j?.rollouts ?? []).map((id) => this.rollouts.get(id)).filter((r): r is RolloutRecord => !!r);
        const running = rs.some((r) => r.status === 'running' || r.status === 'queued');
        const done = rs.filter((r) => r.outcome);
        const rewards = done.map((r) => r.outcome!.reward).filter((x): x is number => x !== null);
        const mean = rewards.length ? rewards.reduce((a, b) => a + b, 0) / rewards.length : null;
        const regraded = rs.filter((r) => r.regrade).map((r) => r.regrade!.delta);
        const desc = [
          rs.length === 1 ? '1 rollout' : `${rs.length} rollouts`,
          // A regrade job sums up its changes: that is what it was run for.
          regraded.length ? summaryText(summarise(regraded)) : undefined,
          mean !== null && !regraded.length
            ? rs.length === 1
              ? `reward ${score(mean)}`
              : `mean ${score(mean)}`
            : undefined,
          running ? 'running' : undefined,
        ]
          .filter(Boolean)
          .join(' · ');
        return {
          id: `job:${node.jobId}`,
          label: j?.label ?? node.jobId,
          description: desc,
          tooltip: `${j?.label ?? node.jobId}\nstarted ${j?.startedAt ?? ''}`,
          icon: running ? { id: 'sync~spin' } : { id: 'layers' },
          contextValue: 'hudJob',
          collapsible: 'expanded',
        };
      }
      case 'rollout': {
        const r = this.rollouts.get(node.rolloutId)!;
        const stale = this.staleness(r.id);
        const staleNote = stale ? `stale: ${staleText(stale)} since this run` : undefined;
        const regradeNote = r.regrade
          ? r.regrade.delta
            ? `regrade of ${r.regrade.of.slice(0, 8)}: ${deltaLine(r.regrade.delta)}`
            : `regrade of ${r.regrade.of.slice(0, 8)} failed: ${r.regrade.error ?? 'unknown reason'}`
          : undefined;
        return {
          id: `rollout:${r.id}`,
          label: `${labelOfRef(r.trace.task.ref)} · ${clockTime(r.trace.startedAt)}`,
          description: [rolloutDescription(r, this.clock()), stale ? 'stale' : undefined].filter(Boolean).join(' · '),
          tooltip: [
            r.trace.task.ref,
            r.outcome ? inlineText(r.outcome) : r.status,
            regradeNote,
            staleNote,
            ...r.trace.warnings.map((w) => `warning: ${w}`),
          ]
            .filter(Boolean)
            .join('\n'),
          icon: stale
            ? { id: 'history', color: 'list.warningForeground' }
            : statusIcon(r.status, r.outcome, this.threshold),
          contextValue: `${r.tracePath ? 'hudRollout.trace' : 'hudRollout'}${stale ? '.stale' : ''}`,
          collapsible: 'collapsed',
        };
      }
      case 'phase': {
        const r = this.rollouts.get(node.rolloutId)!;
        const p = r.trace.phases.find((x) => x.name === node.phase)!;
        const sub = p.substrate;
        const parts = [
          sub
            ? `${sub.provider}${sub.image ? ` ${sub.image}` : ''}${p.reused ? ' (reused)' : ''}`
            : p.reused
              ? 'reused substrate'
              : undefined,
          sub?.sdk ? servedBy(sub.sdk) : undefined,
          durationText(p.startedAt, p.endedAt, this.clock()),
          phaseReward(r.trace, p),
        ];
        return {
          id: `phase:${r.id}:${p.name}`,
          label: p.name,
          description: parts.filter(Boolean).join(' · '),
          tooltip: [
            `${p.name} phase: ${p.status}`,
            sub ? `substrate ${sub.id} (${sub.provider}, isolation ${sub.isolation})` : '',
            p.error ? `error: ${p.error}` : '',
          ]
            .filter(Boolean)
            .join('\n'),
          icon: statusIcon(p.status),
          contextValue: 'hudPhase',
          collapsible: subscoresOf(p).length ? 'expanded' : 'none',
        };
      }
      case 'subscore': {
        const s = this.subscoreAt(node)!;
        const penalty = s.weight < 0;
        return {
          id: `sub:${node.rolloutId}:${node.phase ?? ''}:${node.path.join('.')}`,
          label: s.name,
          description: `${score(s.value)} × ${score(s.weight)}${penalty ? ' penalty' : ''}`,
          tooltip: s.metadata ? JSON.stringify(s.metadata, null, 2).slice(0, 2000) : `${s.name}: ${score(s.value)}`,
          icon: penalty
            ? { id: 'dash', color: 'testing.iconFailed' }
            : { id: s.value >= 1 ? 'pass' : s.value <= 0 ? 'circle-slash' : 'circle-large-outline' },
          contextValue: 'hudSubscore',
          collapsible: s.children?.length ? 'collapsed' : 'none',
        };
      }
      case 'error': {
        const r = this.rollouts.get(node.rolloutId)!;
        const err = r.outcome?.error;
        const failed = err?.phase ?? r.trace.phases.find((p) => p.status === 'error')?.name ?? 'unknown';
        const msg = err?.message ?? r.trace.phases.find((p) => p.error)?.error ?? 'errored';
        return {
          id: `error:${r.id}`,
          label: `failed in ${failed}`,
          description: msg.split(/\r?\n/, 1)[0] ?? '',
          tooltip: msg,
          icon: { id: 'error', color: 'testing.iconErrored' },
          contextValue: 'hudError',
          collapsible: 'none',
        };
      }
    }
  }
}

function subscoresOf(p: TracePhase | undefined): SubScoreT[] {
  return p?.grade?.subscores ?? [];
}

/** The actor's grade is provisional when a verifier has the last word. */
function phaseReward(t: RunningTrace, p: TracePhase): string | undefined {
  const reward = p.grade?.reward;
  if (reward === undefined || reward === null) return undefined;
  return `${p.name === 'actor' && t.verifier ? 'provisional ' : ''}${score(reward)}`;
}

function statusIcon(
  status: RolloutRecord['status'] | TracePhase['status'],
  outcome?: ShownOutcome,
  threshold = 1,
): NodeView['icon'] {
  switch (status) {
    case 'queued':
      return { id: 'clock' };
    case 'running':
      return { id: 'sync~spin' };
    case 'cancelled':
      return { id: 'circle-slash' };
    case 'error':
      return { id: 'error', color: 'testing.iconErrored' };
    case 'completed':
      return outcome ? verdictIcon(outcome, threshold) : { id: 'pass', color: 'testing.iconPassed' };
  }
}

/** `14:03:27` in the machine's time zone: enough to tell today's runs apart. */
export function clockTime(iso: string): string {
  const d = new Date(iso);
  return Number.isFinite(d.getTime()) ? d.toTimeString().slice(0, 8) : iso;
}

/** `fixed "paris"`, `command`, `nop`: who answered, and what when it is short text. */
function agentText(t: RunningTrace): string | undefined {
  const kind = t.agent.kind;
  if (kind === 'unknown') return undefined;
  const a = t.answer;
  if (typeof a === 'string' && a !== '') return `${kind} ${JSON.stringify(a.length > 24 ? `${a.slice(0, 23)}…` : a)}`;
  return kind;
}

/** Which SDK served a phase: the image's own HUD SDK or the bundled runtime (docs/sdk-compatibility.md). */
export function servedBy(sdk: ServingSdk): string {
  return sdk.source === 'image' ? `SDK ${sdk.name} ${sdk.version}` : 'bundled SDK';
}

function rolloutDescription(r: RolloutRecord, now: number): string {
  if (r.regrade) {
    const change = r.regrade.delta ? deltaText(r.regrade.delta) : 'not regraded';
    return ['regrade', change, durationText(r.trace.startedAt, r.trace.endedAt, now)].filter(Boolean).join(' · ');
  }
  if (r.outcome) {
    const time = durationText(r.trace.startedAt, r.trace.endedAt, now);
    return [inlineText(r.outcome), agentText(r.trace), time].filter(Boolean).join(' · ');
  }
  if (r.status === 'queued') return 'queued';
  const phase = r.trace.phases.at(-1);
  const running = `running${phase ? ` ${phase.name}` : ''}`;
  return [running, durationText(r.trace.startedAt, undefined, now)].filter(Boolean).join(' · ');
}

export function durationText(start: string | undefined, end: string | undefined, now: number): string | undefined {
  if (!start) return undefined;
  const a = Date.parse(start);
  const b = end ? Date.parse(end) : now;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return undefined;
  const ms = Math.max(0, b - a);
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const m = Math.floor(ms / 60_000);
  return `${m} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** `envs/env.py::task` -> `task (envs/env.py)`; a Harbor directory -> its last segment. */
export function labelOfRef(ref: string): string {
  const at = ref.lastIndexOf('::');
  if (at < 0) {
    const parts = ref.split('/').filter(Boolean);
    return parts.at(-1) ?? ref;
  }
  const file = ref.slice(0, at).split('/').at(-1) ?? ref.slice(0, at);
  return `${ref.slice(at + 2)} (${file})`;
}
