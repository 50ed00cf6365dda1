/**
 * Typed errors of the Docker layer. Each says what failed and how to fix it,
 * so the CLI and the extension only render `describe()`.
 */
import { HudStudioError } from '../errors';

/** No Docker daemon answers (not installed, not started, wrong DOCKER_HOST). */
export class DockerUnavailableError extends HudStudioError {
  /** `reason` already says how to fix it (see client.ts). */
  constructor(reason: string, opts: { cause?: unknown } = {}) {
    super('docker-unavailable', `Docker is not available: ${reason}`, opts);
  }
}

/** `docker build` failed; `stepOutput` holds the failing step's own lines. */
export class ImageBuildError extends HudStudioError {
  readonly step: string | undefined;
  readonly stepOutput: string[];
  constructor(dockerfile: string, detail: string, step: string | undefined, stepOutput: string[]) {
    const shown = stepOutput.slice(-30).join('\n');
    super(
      'provider',
      `building ${dockerfile} failed${step ? ` at ${step}` : ''}: ${detail}${shown ? `\n${shown}` : ''}`,
      {
        location: { file: dockerfile },
        hint: 'fix the Dockerfile step shown above; `docker build` in that folder shows the same error',
      },
    );
    this.step = step;
    this.stepOutput = stepOutput;
  }
}

/** The daemon refused or lost a container operation. */
export class ContainerError extends HudStudioError {
  constructor(message: string, opts: { hint?: string; cause?: unknown } = {}) {
    super('provider', message, opts);
  }
}

/** The image to run is not present locally and could not be pulled. */
export class ImageMissingError extends HudStudioError {
  constructor(image: string, reason: string) {
    super('provider', `image ${image} is not available: ${reason}`, {
      hint: `build or pull it first (\`docker pull ${image}\`), or choose another image`,
      fix: { kind: 'image' },
    });
  }
}

/** HTTP status of a dockerode error, when it carries one. */
export function dockerStatus(err: unknown): number | undefined {
  const code = (err as { statusCode?: unknown } | null)?.statusCode;
  return typeof code === 'number' ? code : undefined;
}

/** The daemon's own message (dockerode wraps it as `json.message`). */
export function dockerMessage(err: unknown): string {
  const json = (err as { json?: { message?: unknown } } | null)?.json;
  if (json && typeof json.message === 'string') return json.message;
  if (err instanceof Error) return err.message;
  return String(err);
}

/**
 * A copy into or out of a container that the daemon refused. One refusal gets a fix of its own: Docker 29.5.0, and
 * distribution builds that took its security fix without the next day's repair (moby/moby#52653; Debian's
 * 28.5.2+dfsg4 here), refuse every copy of a container that has a mount under a folder its image links elsewhere
 * (`/var/run/docker.sock`, where `/var/run` links to `/run`), whatever the path copied.
 */
export function copyFailed(what: string, err: unknown): ContainerError {
  const message = dockerMessage(err);
  const linkedMount = /\bmkdirat \S+: (?:statat \S+: path escapes from parent|file exists)/.test(message);
  return new ContainerError(`${what} failed: ${message}`, {
    cause: err,
    ...(linkedMount && {
      hint:
        'this Docker daemon cannot copy files into or out of a container with a mount under a folder its image links elsewhere, ' +
        'such as /var/run/docker.sock (/var/run links to /run; moby/moby#52653, Docker 29.5.0 and builds with its backport): ' +
        "update Docker, or mount under the link's target (/run/docker.sock)",
    }),
  });
}
