/**
 * One running Compose project, driven through the real Compose CLI. The
 * project name is unique per rollout and phase, so parallel rollouts never
 * share containers, and `down -v` always runs (error and cancel included)
 * because {@link ComposeProject.down} is idempotent and callers put it in
 * `finally`. Work inside a service is a `docker exec` through the Docker
 * layer, exactly like a single container.
 */
import { CancelledError, HudStudioError } from '../errors';
import { dockerClient } from './client';
import { detectComposeCli, type ComposeCli } from './composeCli';
import { runTool, toolFailure } from '../execa';
import { prepareCompose, type PrepareComposeOptions, type PreparedCompose } from './composeFile';
import { DockerContainer } from './container';
import { dockerMessage } from './errors';
import { sweepOrphansOnce } from './cleanup';

const DOWN_TIMEOUT_MS = 120_000;
const DEFAULT_UP_TIMEOUT_MS = 300_000;

export interface ComposeUpOptions extends Omit<PrepareComposeOptions, 'onLog'> {
  log?: (line: string) => void;
  upTimeoutMs?: number;
}

/** `hudstudio-<rollout>-<phase>`: lowercase, as Compose v1 and v2 both accept. */
export function composeProjectName(rolloutId: string, phase: string): string {
  return `hudstudio-${rolloutId}-${phase}`
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .slice(0, 60);
}

export class ComposeProject {
  private downed: Promise<void> | undefined;
  private readonly containers = new Map<string, DockerContainer>();

  private constructor(
    readonly cli: ComposeCli,
    readonly name: string,
    readonly prepared: PreparedCompose,
    private readonly log: (line: string) => void,
  ) {}

  /** Builds what the file builds, then `up -d`; on failure everything started is taken down again. */
  static async up(opts: ComposeUpOptions): Promise<ComposeProject> {
    const log = opts.log ?? (() => undefined);
    const cli = await detectComposeCli();
    await sweepOrphansOnce(log);
    const prepared = await prepareCompose({ ...opts, onLog: log });
    const project = new ComposeProject(cli, composeProjectName(opts.rolloutId, opts.phase), prepared, log);
    log(`compose: ${cli.argv.join(' ')} ${cli.version}, project ${project.name}`);
    try {
      await project.run(['up', '-d', '--no-build', '--remove-orphans'], {
        timeoutMs: opts.upTimeoutMs ?? DEFAULT_UP_TIMEOUT_MS,
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
      return project;
    } catch (err) {
      await project.down().catch(() => undefined);
      throw err;
    }
  }

  get services(): string[] {
    return this.prepared.services;
  }

  /** The running container of `service`, for exec and copy. */
  async service(service: string): Promise<DockerContainer> {
    if (!this.services.includes(service)) {
      throw new HudStudioError('harbor-config', `the compose project has no service "${service}"`, {
        hint: `use one of: ${this.services.join(', ')}`,
      });
    }
    return this.containerOf(service);
  }

  /** The allowlist proxy's container (composeFile.ts), when the project has one: the engine's, not the task's. */
  async egress(): Promise<DockerContainer | undefined> {
    const name = this.prepared.egressService;
    return name ? this.containerOf(name) : undefined;
  }

  private async containerOf(service: string): Promise<DockerContainer> {
    const known = this.containers.get(service);
    if (known) return known;
    const r = await this.run(['ps', '-q', service], { timeoutMs: 60_000 });
    const id = r.stdout.trim().split('\n').filter(Boolean)[0];
    if (!id)
      throw new HudStudioError('provider', `service "${service}" of compose project ${this.name} is not running`, {
        hint: "check the service's command and its logs (`docker logs`)",
      });
    const handle = dockerClient().getContainer(id);
    let info;
    try {
      info = await handle.inspect();
    } catch (err) {
      throw new HudStudioError('provider', `cannot inspect service "${service}": ${dockerMessage(err)}`, {
        cause: err,
      });
    }
    const image = this.prepared.images[service]?.image ?? info.Config.Image;
    const container = new DockerContainer(
      handle,
      image,
      info.Image,
      info.HostConfig.NetworkMode ?? 'default',
      [],
      info.Config?.User ?? '',
    );
    this.containers.set(service, container);
    return container;
  }

  /** Last lines of every service's output (for error messages). */
  async logs(tail = 40): Promise<string> {
    const r = await this.run(['logs', '--no-color', '--tail', String(tail)], { timeoutMs: 30_000, check: false });
    return r.stdout;
  }

  /** Stops every service (containers stay until {@link down}). */
  async stop(): Promise<void> {
    await this.run(['stop', '-t', '2'], { timeoutMs: DOWN_TIMEOUT_MS });
  }

  /** `down -v --remove-orphans`; idempotent, safe after a failed `up`. */
  down(): Promise<void> {
    this.downed ??= this.run(['down', '-v', '--remove-orphans', '-t', '2'], { timeoutMs: DOWN_TIMEOUT_MS })
      .then(() => undefined)
      .finally(() => this.prepared.dispose());
    return this.downed;
  }

  private async run(
    args: string[],
    opts: { timeoutMs: number; signal?: AbortSignal; check?: boolean },
  ): Promise<{ stdout: string; stderr: string }> {
    if (opts.signal?.aborted) throw new CancelledError('compose');
    const argv = [
      ...this.cli.argv,
      '--project-name',
      this.name,
      '--project-directory',
      this.prepared.projectDirectory,
      '--file',
      this.prepared.file,
      ...args,
    ];
    const r = await runTool(argv, {
      cwd: this.prepared.projectDirectory,
      env: this.prepared.env,
      timeoutMs: opts.timeoutMs,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    for (const line of r.stderr.split('\n')) if (line.trim() && args[0] !== 'logs') this.log(line);
    if (opts.signal?.aborted) throw new CancelledError(`compose ${args[0]}`);
    if (opts.check !== false && r.exitCode !== 0) {
      const { why, tail } = toolFailure(r, opts.timeoutMs, 15);
      throw new HudStudioError(
        'provider',
        `\`${this.cli.argv.join(' ')} ${args.join(' ')}\` for project ${this.name} ${why}${tail ? `:\n${tail}` : ''}`,
        {
          hint: "the lines above are Compose's own output",
        },
      );
    }
    return { stdout: r.stdout, stderr: r.stderr };
  }
}
