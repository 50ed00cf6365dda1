/**
 * How the editor words an engine {@link Fix}: as the setting (or prompt)
 * that makes the change. Never a command-line flag: nobody types one here.
 */
import { errorMessage, fixOf } from './engine/errors';
import type { Fix } from '../../common/fix';

export function editorFixHint(fix: Fix): string {
  switch (fix.kind) {
    case 'runtime':
      return fix.use === 'docker-or-local'
        ? 'set hudStudio.runtime to "docker" or "local"'
        : `set hudStudio.runtime to "${fix.use}"`;
    case 'allow-service-access':
      return 'turn on hudStudio.allowServiceAccess if you trust this environment';
    case 'trace-dir':
      return 'set hudStudio.traceFolder to a writable folder';
    case 'agent-answer':
      return 'set hudStudio.agentAnswer';
    case 'agent-command':
      return 'set hudStudio.agentCommand';
    case 'image':
      return "choose another image in hudStudio.imageOverrides for this task's environment";
  }
}

/** `errorMessage` plus the setting that fixes it. */
export function editorErrorMessage(err: unknown): string {
  return withEditorFix(errorMessage(err), fixOf(err));
}

export function withEditorFix(message: string, fix: Fix | undefined): string {
  return fix ? `${message} (${editorFixHint(fix)})` : message;
}
