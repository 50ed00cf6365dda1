/**
 * The provider a regrade batch runs on (docs/grader-workbench.md, "Regrading
 * many stored runs"). Every rollout still gets fresh substrates of its own,
 * made from the same spec as without a batch; what changes is when:
 *
 * - when a rollout asks for a substrate, one of the same spec and phase is
 *   started for the next stored rollout of the same task, so its container
 *   start overlaps this rollout's discovery, grade and teardown;
 * - a substrate whose provider can stop its server apart from freeing it
 *   (Docker) has its server stopped in the rollout (the template's teardown
 *   runs and is logged as before) and is removed in the background.
 *
 * Nothing passes from one rollout to the next: a substrate made ahead is
 * handed to the one rollout it was made for (its labels carry that
 * rollout's id), never served before, and dropped unused if the env file
 * changed since it was made. `drain()` frees every substrate made ahead
 * that nobody took and waits for every background removal, so a batch
 * returns with nothing left running.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { errorMessage } from '../errors';
import type { AcquireOptions, EnvironmentSpec, Provider, Substrate } from '../providers/provider';
import { BackgroundWork } from '../backgroundWork';
import { HeldLogs } from '../heldLogs';

/** A substrate being made for a rollout that has not asked for it yet, with what its making logged. */
interface Ahead {
  substrate: Promise<Substrate>;
  /** Held until the rollout takes it, then passed on to that rollout's log. */
  logs: HeldLogs;
  envFile: string | undefined;
}

export class BatchProvider implements Provider {
  readonly kind: Provider['kind'];
  private readonly ahead = new Map<string, Ahead>();
  /** Keys whose rollout already asked: nothing is made ahead for them any more. */
  private readonly asked = new Set<string>();
  private readonly freeing: BackgroundWork;

  constructor(
    private readonly inner: Provider,
    /** The rollout to make substrates ahead for once `rolloutId` asks for one; none: nothing is made ahead. */
    private readonly nextOf: (rolloutId: string) => string | undefined,
    /** The batch's signal: a substrate made ahead outlives the rollout that started making it. */
    private readonly signal: AbortSignal | undefined,
    warn: (line: string) => void,
  ) {
    this.kind = inner.kind;
    this.freeing = new BackgroundWork((err) => warn(`freeing a regrade substrate failed: ${errorMessage(err)}`));
  }

  isolatesSubstrates(spec: EnvironmentSpec): boolean {
    return this.inner.isolatesSubstrates?.(spec) ?? false;
  }

  async acquire(spec: EnvironmentSpec, opts: AcquireOptions): Promise<Substrate> {
    const key = keyOf(opts.rolloutId, opts.phase, spec);
    this.asked.add(key);
    const next = this.nextOf(opts.rolloutId);
    if (next !== undefined) this.makeAhead(next, spec, opts);
    const mine = this.ahead.get(key);
    this.ahead.delete(key);
    if (mine) {
      const made = await mine.substrate.catch(() => undefined);
      if (made && mine.envFile !== undefined && envFileHash(spec.envFile) === mine.envFile) {
        mine.logs.replay(opts.log);
        return this.backgroundRelease(made);
      }
      // It failed (its own attempt's error says more) or the source changed since: a fresh one, as without a batch.
      if (made) this.free(made);
    }
    return this.backgroundRelease(await this.inner.acquire(spec, opts));
  }

  /** Rollout `rolloutId` ended: whatever was made ahead for it and not taken is freed now. */
  finished(rolloutId: string): void {
    for (const [key, a] of this.ahead) {
      if (!key.startsWith(`${rolloutId}\n`)) continue;
      this.ahead.delete(key);
      this.freeAhead(a);
    }
  }

  /** Frees every substrate made ahead and waits for every removal in the background; never throws. */
  async drain(): Promise<void> {
    for (const a of this.ahead.values()) this.freeAhead(a);
    this.ahead.clear();
    await this.freeing.drain();
  }

  private makeAhead(rolloutId: string, spec: EnvironmentSpec, opts: AcquireOptions): void {
    const key = keyOf(rolloutId, opts.phase, spec);
    if (this.asked.has(key) || this.ahead.has(key) || this.signal?.aborted) return;
    const logs = new HeldLogs();
    const a: Ahead = { substrate: Promise.resolve(undefined as never), logs, envFile: envFileHash(spec.envFile) };
    a.substrate = this.inner.acquire(spec, {
      rolloutId,
      phase: opts.phase,
      log: logs.log,
      ...(this.signal ? { signal: this.signal } : {}),
      ...(opts.startupTimeoutMs !== undefined ? { startupTimeoutMs: opts.startupTimeoutMs } : {}),
    });
    // Awaited by the rollout that takes it, or by finished()/drain(); its failure is that rollout's to meet.
    a.substrate.catch(() => undefined);
    this.ahead.set(key, a);
  }

  private freeAhead(a: Ahead): void {
    this.freeing.add(
      a.substrate.then(
        (s) => s.release(),
        () => undefined,
      ),
    );
  }

  private free(s: Substrate): void {
    this.freeing.add(s.release());
  }

  /**
   * The same substrate, except that release() stops its server in the
   * rollout and frees it in the background, where its provider can do the
   * two apart; otherwise it is returned as is.
   */
  private backgroundRelease(s: Substrate): Substrate {
    const stop = s.stopServer?.bind(s);
    if (!stop) return s;
    let released: Promise<void> | undefined;
    // A server that failed to stop is still freed; its error stays the rollout's to log.
    const release = (): Promise<void> => (released ??= stop().finally(() => this.free(s)));
    return {
      get info() {
        return s.info;
      },
      envPath: s.envPath,
      workdir: s.workdir,
      execPython: (args, o) => s.execPython(args, o),
      exec: (argv, o) => s.exec(argv, o),
      serve: (o) => s.serve(o),
      openChannel: (signal) => s.openChannel(signal),
      copyIn: (hostPath, dest) => s.copyIn(hostPath, dest),
      copyOut: (src, hostDir) => s.copyOut(src, hostDir),
      ...(s.agentSeat ? { agentSeat: s.agentSeat.bind(s) } : {}),
      stopServer: stop,
      release,
    };
  }
}

function keyOf(rolloutId: string, phase: string, spec: EnvironmentSpec): string {
  return `${rolloutId}\n${phase}\n${JSON.stringify(spec)}`;
}

/** The env file's content hash when a substrate copies it; undefined when it cannot be read (then never reused). */
function envFileHash(file: string): string | undefined {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex');
  } catch {
    return undefined;
  }
}
