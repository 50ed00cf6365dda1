/**
 * The engine's side of a task's compose file that reaches the host
 * (common/compose/hostAccess.ts says what does): refused without the
 * user's consent, warned about with it.
 */
import { HudStudioError } from '../errors';
import { isLocalDaemon } from './client';
import type { HostAccess } from '../../../../common/compose/hostAccess';

/**
 * Refuses a compose file that reaches the host unless the user consented;
 * with consent, the warnings to log. The Docker socket stays refused on a
 * remote daemon, as for service_access: it would be another machine's.
 */
export function checkHostAccess(
  composeFile: string,
  found: readonly HostAccess[],
  consented: boolean,
  host?: string,
): string[] {
  const first = found[0];
  if (!first) return [];
  const said = (h: HostAccess) => `${h.subject} ${h.what}`;
  if (!consented) {
    throw new HudStudioError(
      'provider',
      `${composeFile}: ${found.map(said).join('; ')}. That reaches this machine, not just the task's containers, so it needs your explicit consent`,
      {
        location: { file: composeFile, key: first.path.join('.') },
        hint: 'if you trust this task, allow service access for it; otherwise remove that setting from the compose file',
        fix: { kind: 'allow-service-access' },
      },
    );
  }
  const socket = found.find((h) => h.socket);
  if (socket && !isLocalDaemon(host)) {
    throw new HudStudioError(
      'provider',
      `${composeFile}: ${said(socket)}, which is refused for a remote Docker daemon: it would hand the task another machine's containers`,
      {
        location: { file: composeFile, key: socket.path.join('.') },
        hint: 'run this task against a local daemon (unset DOCKER_HOST), or remove that mount',
      },
    );
  }
  return found.map((h) => `${said(h)} (consented: it reaches this machine)`);
}
