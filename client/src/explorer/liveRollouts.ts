/**
 * The extension host's copy of the rollouts running in this session, folded
 * from their events exactly as the engine folds its trace file, so a panel
 * opened (or shown again) mid-run starts from everything so far. No vscode.
 */
import type { RolloutEvent } from '../../../common/events';
import { foldRolloutEvent } from '../../../common/trace/fold';
import type { RunningTrace } from '../../../common/trace/schema';
import type { HostToExplorerMessage } from '../../../common/explorerMessages';

export class LiveRollouts {
  private readonly traces = new Map<string, RunningTrace>();

  apply(event: RolloutEvent): void {
    const trace = foldRolloutEvent(this.traces.get(event.rolloutId) ?? null, event);
    if (trace) this.traces.set(event.rolloutId, trace);
  }

  get(rolloutId: string): RunningTrace | undefined {
    return this.traces.get(rolloutId);
  }

  isRunning(rolloutId: string): boolean {
    return this.traces.get(rolloutId)?.status === 'running';
  }

  forget(rolloutId: string): void {
    this.traces.delete(rolloutId);
  }

  /**
   * What a page showing this rollout gets on `ready` (its first load, or a
   * reload after it was hidden): the rollout so far in the `running` message,
   * never the finished-trace `trace` message, whose schema rejects `running`.
   */
  snapshot(rolloutId: string): HostToExplorerMessage {
    const trace = this.traces.get(rolloutId);
    if (trace) return { type: 'running', trace };
    return {
      type: 'loadError',
      message: 'This rollout is no longer in memory; open its trace file from the Runs view.',
    };
  }
}
