/** How the command line words an engine {@link Fix}: as the flags that make the change. */
import { errorMessage, fixOf } from '../engine/errors';
import type { Fix } from '../../../common/fix';
import { forTerminal } from '../terminalText';

export function cliFixHint(fix: Fix): string {
  switch (fix.kind) {
    case 'runtime':
      return fix.use === 'docker-or-local' ? 'use --runtime docker or --runtime local' : `use --runtime ${fix.use}`;
    case 'allow-service-access':
      return 'pass --allow-service-access if you trust this environment';
    case 'trace-dir':
      return 'choose a writable folder with --trace-dir';
    case 'agent-answer':
      return 'give the answer with --answer TEXT';
    case 'agent-command':
      return 'give the command with --command CMD';
    case 'image':
      return 'choose another image with --image';
  }
}

/** `errorMessage` plus the flag that fixes it. */
export function cliErrorMessage(err: unknown): string {
  return withCliFix(errorMessage(err), fixOf(err));
}

/** The line a command writes to stderr when it fails: the message may quote an agent's output. */
export function cliErrorLine(err: unknown): string {
  return `hud-studio: ${forTerminal(cliErrorMessage(err))}\n`;
}

export function withCliFix(message: string, fix: Fix | undefined): string {
  return fix ? `${message} (${cliFixHint(fix)})` : message;
}
