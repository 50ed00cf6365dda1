/**
 * Makes an image present before a container of it is created, pulling it the
 * way Harbor does for a task's `docker_image`: nothing happens when the image
 * is already local; otherwise the daemon pulls it, each layer's progress goes
 * to the log (at most one line per layer and status), and a failure is an
 * ImageMissingError that says what the registry answered.
 */
import { CancelledError } from '../errors';
import { dockerClient } from './client';
import { ImageMissingError, dockerMessage, dockerStatus } from './errors';

export interface PullOptions {
  signal?: AbortSignal;
  onLog?: (line: string) => void;
}

interface PullEvent {
  status?: string;
  id?: string;
  progress?: string;
  error?: string;
  errorDetail?: { message?: string };
}

/** Returns true when the image had to be pulled. */
export async function ensureImage(image: string, opts: PullOptions = {}): Promise<boolean> {
  const docker = dockerClient();
  try {
    await docker.getImage(image).inspect();
    return false;
  } catch (err) {
    if (dockerStatus(err) !== 404)
      throw new ImageMissingError(image, `the Docker daemon could not inspect it: ${dockerMessage(err)}`);
  }
  if (opts.signal?.aborted) throw new CancelledError(`pulling ${image}`);
  opts.onLog?.(`pulling ${image}`);
  let stream: NodeJS.ReadableStream;
  try {
    stream = await docker.pull(image);
  } catch (err) {
    throw new ImageMissingError(image, `pulling it failed: ${dockerMessage(err)}`);
  }
  const seen = new Set<string>();
  await new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
      reject(new CancelledError(`pulling ${image}`));
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    docker.modem.followProgress(
      stream,
      (err: Error | null, events: PullEvent[]) => {
        opts.signal?.removeEventListener('abort', onAbort);
        const failed = err ? dockerMessage(err) : events.find((e) => e.error)?.error;
        if (failed) reject(new ImageMissingError(image, `pulling it failed: ${failed}`));
        else resolve();
      },
      (e: PullEvent) => {
        if (!e.status) return;
        // Byte counts change on every event; one line per layer and status is enough to follow.
        const key = `${e.id ?? ''}\0${e.status}`;
        if (seen.has(key)) return;
        seen.add(key);
        opts.onLog?.(`pull ${image}: ${e.id ? `${e.id} ` : ''}${e.status}`);
      },
    );
  });
  opts.onLog?.(`pulled ${image}`);
  return true;
}
