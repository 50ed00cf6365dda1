/**
 * `hud-studio run PATH[::REF]`: one rollout, rendered live (or one JSON
 * object with --json). Exit 0 completed, 1 errored, 2 usage, 130 cancelled.
 * A Harbor task directory (a folder with task.toml) goes to the Harbor runner.
 */
import { CLI_AGENTS, choosesNoAgent } from '../engine/agents/kinds';
import { HudStudioError, UsageError } from '../engine/errors';
import { EventHub } from '../../../common/events';
import type { FinishedRollout, RolloutOutcome } from '../engine/outcome';
import { runTask } from '../engine/runTask';
import { cliErrorLine, cliErrorMessage, withCliFix } from './fixHint';
import { abortOnInterrupt } from './interrupt';
import { EXIT, type CliIO } from './io';
import { MODEL_USAGE, withModelFlags } from './modelFlags';
import { COMMON_OPTIONS, parse, positiveNumber, requestBase } from './options';
import { humanRenderer } from './render';
import { forTerminal } from '../terminalText';

export const RUN_USAGE = `usage: hud-studio run PATH[::REF] [options]

  PATH            an env.py (or .json/.jsonl task file), the folder that holds env.py, or a Harbor task directory
  ::REF           NAME, NAME[i] or N (row); may be omitted when the file has one task

options:
  --answer TEXT   the answer (implies --agent fixed)
  --agent KIND    the actor (default: fixed with --answer, command with --command, llm with --model, else nop):
${CLI_AGENTS.map((a) => `                    ${a.kind.padEnd(8)} ${a.what}`).join('\n')}
  --command CMD   shell command run in the actor substrate; its stdout is the answer
  --runtime R     auto | docker | local | tcp://HOST:PORT (default auto)
  --image IMG     image for Docker substrates (wins over a Dockerfile)
  --sdk S         auto | bundled | image: who serves an env.py (default auto: the image's own HUD SDK v6
                  when it can serve, else the bundled runtime)
  --trace-dir DIR where traces go (default .hud-studio/traces)
  --timeout SEC   limit for the whole rollout
  --call-timeout SEC
                  limit of each tasks.start and tasks.grade (default 600; a task's
                  runtime_config.limits.run_timeout_s wins)
  --module ENV_PY the environment module of a .json/.jsonl task file
  --allow-service-access
                  consent to mount the Docker socket into a compose task's main service
                  (runtime_config.compose service_access; local daemons only), and to run
                  a task whose own compose file binds the socket or host files outside the
                  task's folder, hands a service host devices or variables, runs it
                  privileged or with kernel-opening capabilities or security options, or
                  shares the host's namespaces or another container's, and to fill
                  that file's variables from your whole environment
  --allow-shared-secrets
                  give a verifier that shares the actor's substrate its secrets anyway
                  (the actor could read them)
  --allow-environment-host HOST, --allow-agent-host HOST
                  (repeatable) a Harbor task may reach HOST too: with the first, its
                  [environment] policy (and a separate verifier that inherits it); with
                  the second, the agent's container only. A no-network policy becomes an
                  allowlist of HOST, a public one stays public (as in Harbor); HOST is a
                  hostname, or *.example.com for the names below it
  --json          print one JSON object instead of the live log

${MODEL_USAGE}`;

/** The `--json` object of `run` (issue 3). */
export interface RunJson {
  status: RolloutOutcome['status'];
  reward: number | null;
  subscores: { name: string; value: number; weight: number }[];
  phases: {
    name: string;
    substrate: FinishedRollout['trace']['phases'][number]['substrate'];
    reused: boolean;
    status: string;
    startedAt: string;
    endedAt: string | null;
  }[];
  error: { phase: string; message: string } | null;
  /** The agent could have written this reward itself (docs/security.md). */
  forgeable: boolean;
  trace: string | null;
  /** Why no trace was written, when the trace folder is unwritable or full. */
  traceError?: string;
}

export function runJson(o: FinishedRollout): RunJson {
  return {
    status: o.status,
    reward: o.reward,
    subscores: (o.result?.subscores ?? []).map((s) => ({ name: s.name, value: s.value, weight: s.weight })),
    phases: o.trace.phases.map((p) => ({
      name: p.name,
      substrate: p.substrate,
      reused: p.reused,
      status: p.status,
      startedAt: p.startedAt,
      endedAt: p.endedAt ?? null,
    })),
    error: o.error ? { phase: o.error.phase, message: withCliFix(o.error.message, o.error.fix) } : null,
    forgeable: o.trace.forgeable ?? false,
    trace: o.tracePath ?? null,
    ...(o.traceError ? { traceError: o.traceError } : {}),
  };
}

export function exitCodeFor(status: RolloutOutcome['status']): number {
  return status === 'completed' ? EXIT.ok : status === 'cancelled' ? EXIT.cancelled : EXIT.error;
}

export async function runCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(argv, COMMON_OPTIONS);
  if (values.help) {
    io.stdout.write(RUN_USAGE);
    return EXIT.ok;
  }
  if (positionals.length !== 1)
    throw new UsageError(`run takes exactly one PATH[::REF], got ${positionals.length}`, {
      hint: 'hud-studio run env.py::task --answer 42',
    });
  const ref = positionals[0]!;
  const timeoutSec = positiveNumber('timeout', values.timeout, false);
  if ((values.model?.length ?? 0) > 1)
    throw new UsageError('run takes one --model', { hint: 'use hud-studio eval to compare models' });
  const hub = new EventHub();
  if (!values.json) hub.on(humanRenderer(io.stdout));
  if (choosesNoAgent(values)) {
    io.stderr.write(
      'no agent chosen: running with the nop agent, which answers nothing (pass --answer TEXT, --command CMD or --agent KIND)\n',
    );
  }
  const interrupt = abortOnInterrupt(
    () => void io.stderr.write('cancelling: releasing every substrate (Ctrl-C again to quit at once)\n'),
  );
  try {
    const outcome = await runTask(
      { ...withModelFlags(requestBase(values, io.cwd, timeoutSec), values, io.env, values.model?.[0]), ref },
      { hub, signal: interrupt.signal, notice: (line) => void io.stderr.write(`${forTerminal(line)}\n`) },
    );
    if (values.json) io.stdout.write(`${JSON.stringify(runJson(outcome), null, 2)}\n`);
    else if (outcome.noAnswer) {
      io.stdout.write(
        outcome.noAnswer === 'nop' ? 'note: the nop agent gave no answer\n' : 'note: the answer was empty\n',
      );
    }
    if (outcome.traceError) {
      // The result above stands, but a run whose record is lost has not fully succeeded.
      io.stderr.write(`hud-studio: no trace was written: ${outcome.traceError}\n`);
      return outcome.status === 'cancelled' ? EXIT.cancelled : EXIT.error;
    }
    return exitCodeFor(outcome.status);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    // Failed before a rollout could start (e.g. --runtime docker without a daemon).
    if (values.json) {
      const json: RunJson = {
        status: 'error',
        reward: null,
        subscores: [],
        phases: [],
        error: { phase: 'setup', message: cliErrorMessage(err) },
        forgeable: false,
        trace: null,
      };
      io.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
    } else io.stderr.write(cliErrorLine(err));
    return err instanceof HudStudioError && err.code === 'cancelled' ? EXIT.cancelled : EXIT.error;
  } finally {
    interrupt.dispose();
  }
}
