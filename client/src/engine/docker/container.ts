/**
 * Containers the engine runs: labelled for ownership (cleanup.ts removes the
 * leftovers of dead owners), with the task's limits applied or a warning
 * saying which could not be. PID 1 is Docker's init; its child is either a
 * sleep that keeps the container alive for the engine's execs, or a process
 * of the engine's own, attached before start (ContainerSpec.attach).
 */
import { hostname } from 'node:os';
import { lstat, readlink } from 'node:fs/promises';
import { basename, posix } from 'node:path';
import type { Duplex, Readable } from 'node:stream';
import type Docker from 'dockerode';
import type { ExecOptions, ExecResult } from '../providers/provider';
import { dockerClient } from './client';
import { ContainerError, ImageMissingError, copyFailed, dockerMessage, dockerStatus } from './errors';
import { attachContainer, closeAttached, runExec, spawnExec, watchAttached, type InteractiveExec } from './exec';
import { enginePath, imageEnvOf } from './enginePath';
import { extractTar, packEntries, statFields, walkFolder, type FolderEntry } from './tar';
import { rolloutNetwork } from './rolloutNetwork';
import { containerdSnapshotter } from './imageStore';
import { LABELS, type ContainerSpec, type ManagedContainer, type NetworkMode, type RunningExec } from './types';

const MiB = 1024 * 1024;
const KEEP_ALIVE = ['sleep', 'infinity'];

/** Whether Harbor's or Docker's name for a network mode means no network at all. */
function noNetwork(mode: NetworkMode | undefined): boolean {
  return mode === 'none' || mode === 'no-network';
}

/** The labels every managed container carries. */
export function ownerLabels(spec: Pick<ContainerSpec, 'rolloutId' | 'phase' | 'extraLabels'>): Record<string, string> {
  return {
    ...spec.extraLabels,
    [LABELS.managed]: 'true',
    [LABELS.rollout]: spec.rolloutId,
    [LABELS.phase]: spec.phase,
    [LABELS.ownerHost]: hostname(),
    [LABELS.ownerPid]: String(process.pid),
  };
}

/**
 * Creates and starts a container for `spec`; on any failure nothing is left
 * behind. `facts`: the image's inspection when the caller already has it
 * (a provider inspects each image once per job, docs/engine.md).
 */
export async function createContainer(spec: ContainerSpec, facts?: Promise<ImageFacts>): Promise<ManagedContainer> {
  const docker = dockerClient();
  const { imageId, imageUser, imageLabels, imagePath, imagePythonPath } = await (facts ??
    inspectImage(docker, spec.image));
  const warnings: string[] = [];
  // With network access, the rollouts' own bridge rather than Docker's default one (rolloutNetwork.ts).
  const network = spec.networkName ?? (noNetwork(spec.network) ? 'none' : await rolloutNetwork(docker));
  // Init reaps the orphans of killed commands (PID 1 is otherwise a plain sleep).
  const host: Docker.HostConfig = { NetworkMode: network, Init: true };
  if (spec.cpus !== undefined) host.NanoCpus = Math.round(spec.cpus * 1e9);
  if (spec.memoryMb !== undefined) host.Memory = Math.round(spec.memoryMb * MiB);
  if (spec.pidsLimit !== undefined) host.PidsLimit = spec.pidsLimit;
  if (spec.dnsOptions?.length) host.DnsOptions = spec.dnsOptions;
  if (spec.binds?.length) host.Binds = spec.binds;
  if (spec.readOnlyMounts?.length) {
    host.Mounts = spec.readOnlyMounts.map((m) => ({
      Type: 'bind' as const,
      Source: m.source,
      Target: m.target,
      ReadOnly: true,
      // Nothing mounted later on either side shows through to the other.
      BindOptions: { Propagation: 'rprivate' as const },
    }));
  }
  if (spec.noNewPrivileges) host.SecurityOpt = ['no-new-privileges'];
  if (spec.processesOf) {
    host.PidMode = `container:${spec.processesOf}`;
    // The other container's first process is PID 1 here; a second init would only warn that it is not.
    delete host.Init;
  }
  if (spec.capAdd?.length) host.CapAdd = spec.capAdd;
  if (spec.storageMb !== undefined) {
    const snapshotter = await containerdSnapshotter(docker);
    if (snapshotter === undefined) host.StorageOpt = { size: `${Math.round(spec.storageMb)}M` };
    else
      warnings.push(
        `storage limit of ${spec.storageMb} MB not applied: Docker's containerd image store (snapshotter ${snapshotter}) does not enforce a container's storage size`,
      );
  }
  if (spec.gpus !== undefined) {
    host.DeviceRequests = [{ Driver: '', Count: spec.gpus === 'all' ? -1 : spec.gpus, Capabilities: [['gpu']] }];
  }
  const options = (): Docker.ContainerCreateOptions => ({
    Image: imageId,
    Cmd: spec.cmd ?? KEEP_ALIVE,
    Env: Object.entries(spec.env ?? {}).map(([k, v]) => `${k}=${v}`),
    Labels: ownerLabels(spec),
    HostConfig: { ...host },
    ...(spec.workdir ? { WorkingDir: spec.workdir } : {}),
    ...(spec.user ? { User: spec.user } : {}),
    // A keep-alive PID 1 gets no stdin; an attached process gets one that closes with our connection.
    ...(spec.attach
      ? { AttachStdin: true, AttachStdout: true, AttachStderr: true, OpenStdin: true, StdinOnce: true }
      : { AttachStdin: false, OpenStdin: false }),
    Tty: false,
  });
  // Its output is the engine's to log (it may carry what the environment prints), not the daemon's.
  if (spec.attach) host.LogConfig = { Type: 'none', Config: {} };

  // Limits the daemon cannot enforce are dropped one by one, each with a warning, never silently.
  const fallbacks: { applies: (msg: string) => boolean; drop: (msg: string) => string | undefined }[] = [
    {
      applies: (msg) => host.StorageOpt !== undefined && /storage[- ]opt|quota|xfs/i.test(msg),
      drop: (msg) => {
        delete host.StorageOpt;
        return `storage limit of ${spec.storageMb} MB not applied: the Docker storage driver cannot enforce it (${msg})`;
      },
    },
    {
      applies: (msg) => host.DeviceRequests !== undefined && /device driver|gpu|nvidia/i.test(msg),
      drop: (msg) => {
        delete host.DeviceRequests;
        return `GPU request (${spec.gpus}) not applied: the Docker daemon has no GPU runtime (${msg})`;
      },
    },
    {
      // Without docker-init, killed background processes stay zombies until removal: harmless.
      applies: (msg) => host.Init === true && /docker-init|\binit\b/i.test(msg),
      drop: () => {
        delete host.Init;
        return undefined;
      },
    },
  ];
  for (;;) {
    let container: Docker.Container | undefined;
    let attached: Duplex | undefined;
    try {
      container = await docker.createContainer(options());
      // Before start: an attach to a container whose process has already ended is never answered.
      if (spec.attach) attached = await attachContainer(container);
      await container.start();
      return new DockerContainer(
        container,
        spec.image,
        imageId,
        network,
        warnings,
        spec.user || imageUser,
        imageLabels,
        imagePath,
        imagePythonPath,
        attached,
      );
    } catch (err) {
      attached?.destroy();
      if (container) await removeQuietly(container);
      const msg = dockerMessage(err);
      const fallback = fallbacks.find((f) => f.applies(msg));
      if (!fallback) {
        throw new ContainerError(`could not ${container ? 'start' : 'create'} a container of ${spec.image}: ${msg}`, {
          cause: err,
        });
      }
      const warning = fallback.drop(msg);
      if (warning) warnings.push(warning);
    }
  }
}

/** Whether a container's `User` ('' is the image's default, root) is root. */
export function isRootUser(user: string): boolean {
  return /^(|root|0)(:.*)?$/.test(user);
}

export interface ImageFacts {
  imageId: string;
  imageUser: string;
  imageLabels: Record<string, string>;
  /** The PATH the image sets; undefined: Docker's default. */
  imagePath: string | undefined;
  /** The PYTHONPATH the image sets, if any. */
  imagePythonPath: string | undefined;
  /** Whether the image names an ENTRYPOINT, which a container's command is handed to. */
  hasEntrypoint: boolean;
}

/** What a container of `image` is made from: its id (every container of a job runs the same one), user, labels. */
export async function inspectImage(docker: Docker, image: string): Promise<ImageFacts> {
  try {
    const info = await docker.getImage(image).inspect();
    const entrypoint: unknown = info.Config?.Entrypoint;
    return {
      imageId: info.Id,
      imageUser: info.Config?.User ?? '',
      imageLabels: info.Config?.Labels ?? {},
      imagePath: imageEnvOf(info.Config?.Env),
      imagePythonPath: imageEnvOf(info.Config?.Env, 'PYTHONPATH'),
      hasEntrypoint: Array.isArray(entrypoint) ? entrypoint.length > 0 : Boolean(entrypoint),
    };
  } catch (err) {
    if (dockerStatus(err) === 404) throw new ImageMissingError(image, 'not found on this Docker host');
    throw new ContainerError(`could not inspect image ${image}: ${dockerMessage(err)}`, { cause: err });
  }
}

/** How long the exit code of a container's own process is waited for once its output has ended. */
const EXIT_CODE_WAIT_MS = 2_000;

/**
 * The exit code of the container's own process, once the daemon has seen it
 * end (its wait endpoint answers then, with no polling); null when the
 * container is gone or the daemon has not seen the end within the bound.
 */
async function exitCodeOfContainer(container: Docker.Container): Promise<number | null> {
  try {
    const r = (await container.wait({
      condition: 'not-running',
      abortSignal: AbortSignal.timeout(EXIT_CODE_WAIT_MS),
    })) as { StatusCode?: unknown } | null;
    return typeof r?.StatusCode === 'number' ? r.StatusCode : null;
  } catch {
    return null;
  }
}

async function removeQuietly(container: Docker.Container): Promise<void> {
  await container.remove({ force: true, v: true }).catch(() => undefined);
}

export interface CopyInOptions {
  /** Leaves out matching paths (relative to the copied folder, `/`-separated). */
  skip?: (rel: string, isDir: boolean) => boolean;
}

async function entriesOf(hostPath: string, skip: CopyInOptions['skip']): Promise<FolderEntry[]> {
  const st = await lstat(hostPath, { bigint: true }).catch(() => undefined);
  if (!st) throw new ContainerError(`cannot copy ${hostPath} into the container: it does not exist`);
  if (st.isDirectory()) return walkFolder(hostPath, skip);
  const single = { rel: basename(hostPath), abs: hostPath, ...statFields(st) };
  // A symlink travels as a symlink: following it would copy other host files in.
  if (st.isSymbolicLink()) return [{ ...single, type: 'symlink', size: 0, linkname: await readlink(hostPath) }];
  return [{ ...single, type: 'file' }];
}

/** One archive of several host files or folders, each under its `dest`, to unpack at `/`. */
export type CopyItem = { hostPath: string; dest: string } & CopyInOptions;

/** A copy whose files are listed (walked once) and whose archive is made on demand. */
export interface PackedCopy {
  readonly items: CopyItem[];
  /** The files' total size, which decides how the copy travels. */
  readonly bytes: number;
  /** A fresh tar stream of the copy, names relative to `/`. */
  open(): Readable;
}

/** What a copy would hold, listed with one `lstat` per entry: each entry's name in the archive, and its state. */
export interface ListedCopy {
  readonly items: CopyItem[];
  /** Every entry, `rel` relative to `/` (under its item's `dest`). */
  readonly entries: FolderEntry[];
  /** Folders to make before the entries (relative to `/`): the extra folders, and empty items' `dest`. */
  readonly parents: string[];
}

/** `folders`: empty folders to make as well (absolute paths). */
export async function listCopy(items: CopyItem[], folders: string[] = []): Promise<ListedCopy> {
  const entries: FolderEntry[] = [];
  const parents: string[] = folders.map((f) => posix.resolve('/', f).slice(1)).filter(Boolean);
  for (const item of items) {
    const below = posix.resolve('/', item.dest).slice(1);
    const own = await entriesOf(item.hostPath, item.skip);
    // An empty folder has no entry that would bring `dest` into being.
    if (own.length === 0 && below) parents.push(below);
    for (const e of own) entries.push({ ...e, rel: below ? `${below}/${e.rel}` : e.rel });
  }
  return { items, entries, parents };
}

/** The archive of a listed copy, read from the disk each time it is opened. */
export function packListed(listed: ListedCopy): PackedCopy {
  const bytes = listed.entries.reduce((sum, e) => sum + e.size, 0);
  return { items: listed.items, bytes, open: () => packEntries(listed.entries, { parents: listed.parents }) };
}

/** `folders`: empty folders to make as well (absolute paths). */
export async function packCopy(items: CopyItem[], folders: string[] = []): Promise<PackedCopy> {
  return packListed(await listCopy(items, folders));
}

/** What a copy of `items` is called in errors. */
export function describeCopy(items: CopyItem[]): string {
  return items.map((i) => `${i.hostPath} to ${posix.resolve('/', i.dest)}`).join(', ');
}

export class DockerContainer implements ManagedContainer {
  private removal: Promise<void> | undefined;
  private main: InteractiveExec | undefined;

  constructor(
    readonly handle: Docker.Container,
    readonly image: string,
    readonly imageId: string,
    readonly network: string,
    readonly warnings: string[],
    /** The user execs run as unless they name one ('' is the image's default, root). */
    readonly user = '',
    /** The image's labels (an environment declares a root agent with one: docs/security.md). */
    readonly imageLabels: Record<string, string> = {},
    /** The PATH the image sets; undefined: unknown, or Docker's default. */
    readonly imagePath?: string,
    /** The PYTHONPATH the image sets, if any (the image's own SDK serves with it). */
    readonly imagePythonPath?: string,
    /** The attach connection of the container's own process (ContainerSpec.attach), until `takeMain`. */
    private attached?: Duplex,
  ) {}

  /**
   * The container's own process (created with ContainerSpec.attach) as a
   * running command: its stdin, its output to `opts.onOutput`; `kill`
   * signals it through docker-init, and its end is the container's. Taken
   * once; undefined for a container without one.
   */
  takeMain(opts: Pick<ExecOptions, 'onOutput'> = {}): InteractiveExec | undefined {
    const sock = this.attached;
    this.attached = undefined;
    if (!sock) return this.main;
    const kill = async (sig: 'TERM' | 'KILL' | 'INT' = 'TERM'): Promise<void> => {
      await this.signalMain(`SIG${sig}`);
    };
    this.main = { ...watchAttached(sock, opts, () => exitCodeOfContainer(this.handle), kill), stdin: sock };
    return this.main;
  }

  /** Whether the container was created around a process of the engine's own (ContainerSpec.attach). */
  get hasOwnProcess(): boolean {
    return this.attached !== undefined || this.main !== undefined;
  }

  /** Sends `signal` to the container's own process (docker-init hands it on); false when it is not running. */
  signalMain(signal: NodeJS.Signals): Promise<boolean> {
    return this.handle.kill({ signal }).then(
      () => true,
      () => false,
    );
  }

  /** Whether execs run as root, so that one of them may write anywhere a `putArchive` could. */
  get runsAsRoot(): boolean {
    return isRootUser(this.user);
  }

  get id(): string {
    return this.handle.id;
  }

  /**
   * `PATH` for an exec of the engine's own where an agent of HUD Studio's
   * seat works (docs/security.md): the image's, without folders the agent can
   * write (./enginePath.ts). Empty when the image sets none (Docker's
   * default holds no such folder).
   */
  get enginePathEnv(): { PATH?: string } {
    return this.imagePath === undefined ? {} : { PATH: enginePath(this.imagePath) };
  }

  exec(argv: string[], opts?: ExecOptions): Promise<ExecResult> {
    return runExec(this.handle, argv, opts);
  }

  spawn(argv: string[], opts?: ExecOptions): Promise<RunningExec> {
    return spawnExec(this.handle, argv, opts);
  }

  /**
   * A folder's contents go into `dest`; a file goes to `dest/<its name>`.
   * Works before start too. One request: the archive is unpacked at `/`
   * with every name under `dest`, and the daemon creates missing parent
   * folders (0755) while existing ones keep their modes (e.g. /tmp's 1777).
   */
  copyIn(hostPath: string, dest: string, opts: CopyInOptions = {}): Promise<void> {
    return this.copyInAll([{ hostPath, dest, ...opts }]);
  }

  /** Several copies in one archive (each archive costs the daemon a helper process). */
  async copyInAll(items: CopyItem[]): Promise<void> {
    await this.putPacked(await packCopy(items));
  }

  /** A packed copy through the daemon's putArchive. */
  async putPacked(packed: PackedCopy): Promise<void> {
    try {
      await this.handle.putArchive(packed.open(), { path: '/' });
    } catch (err) {
      throw copyFailed(`copying ${describeCopy(packed.items)} in container ${this.id.slice(0, 12)}`, err);
    }
  }

  /** Copies `src` (file or folder) into `hostDir/<basename of src>`, like `docker cp`. */
  async copyOut(src: string, hostDir: string): Promise<void> {
    let archive: NodeJS.ReadableStream;
    try {
      archive = await this.handle.getArchive({ path: src });
    } catch (err) {
      throw copyFailed(`copying ${src} out of container ${this.id.slice(0, 12)}`, err);
    }
    await extractTar(archive as Readable, hostDir);
  }

  remove(): Promise<void> {
    this.removal ??= this.handle.remove({ force: true, v: true }).then(
      () => closeAttached(this.handle),
      (err: unknown) => {
        const status = dockerStatus(err);
        // 404: already gone; 409: another caller's removal is in progress.
        if (status === 404 || status === 409) return closeAttached(this.handle);
        this.removal = undefined;
        throw new ContainerError(`could not remove container ${this.id.slice(0, 12)}: ${dockerMessage(err)}`, {
          cause: err,
        });
      },
    );
    return this.removal;
  }
}
