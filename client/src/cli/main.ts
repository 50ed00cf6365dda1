/** Command dispatch of the `hud-studio` CLI. */
import { CLI_AGENT_NAMES } from '../engine/agents/kinds';
import { UsageError } from '../engine/errors';
import { cliErrorLine } from './fixHint';
import { EVAL_USAGE, evalCommand } from './eval';
import { EXIT, type CliIO } from './io';
import { RUN_USAGE, runCommand } from './run';
import { version } from './version';

export const USAGE = `HUD Studio ${version()}: run and check HUD environments and Harbor tasks

usage:
  hud-studio run PATH[::REF] [--answer TEXT] [--agent ${CLI_AGENT_NAMES}] [--command CMD]
                 [--runtime auto|docker|local|tcp://HOST:PORT] [--image IMG] [--sdk auto|bundled|image]
                 [--trace-dir DIR] [--timeout SEC] [--json]
  hud-studio eval PATH... [--agent KIND] [--answer TEXT] [--command CMD] [--group N]
                 [--max-concurrent N] [--threshold X] [--json]
  hud-studio check [PATH...]      static checks of env.py files and Harbor tasks
  hud-studio regrade PATH[::REF] [--traces DIR] [--json]
                                  grade stored rollouts again with the current grader
  hud-studio sanity PATH...       try to game every task's grader with answers that deserve 0
  hud-studio --help | --version

Run "hud-studio COMMAND --help" for a command's options.
Exit codes: 0 completed, 1 error, 2 usage error, 130 cancelled.
`;

export async function main(argv: string[], io: CliIO): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        io.stdout.write(command === undefined ? USAGE : helpFor(rest[0]));
        return command === undefined ? EXIT.usage : EXIT.ok;
      case '--version':
      case '-V':
      case 'version':
        io.stdout.write(`${version()}\n`);
        return EXIT.ok;
      case 'run':
        return await runCommand(rest, io);
      case 'eval':
        return await evalCommand(rest, io);
      case 'check': {
        const { runCheck } = await import('./check');
        return await runCheck(rest, io);
      }
      case 'regrade': {
        const { regradeCommand } = await import('./regrade');
        return await regradeCommand(rest, io);
      }
      case 'sanity': {
        const { sanityCommand } = await import('./sanity');
        return await sanityCommand(rest, io);
      }
      default:
        throw new UsageError(`unknown command "${command}"`, {
          hint: 'use run, eval, check, regrade or sanity (hud-studio --help)',
        });
    }
  } catch (err) {
    io.stderr.write(cliErrorLine(err));
    return err instanceof UsageError ? EXIT.usage : EXIT.error;
  }
}

function helpFor(command: string | undefined): string {
  if (command === 'run') return RUN_USAGE;
  if (command === 'eval') return EVAL_USAGE;
  return USAGE;
}
