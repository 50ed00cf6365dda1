/** Option parsing shared by `run` and `eval` (node:util parseArgs, strict). */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { parseSdkChoice } from '../engine/providers/servingSdk';
import { UsageError } from '../engine/errors';
import { AllowedHost } from '../../../common/harbor/schema';
import type { TaskRunRequest } from '../engine/runRequest';

export const COMMON_OPTIONS = {
  agent: { type: 'string' },
  answer: { type: 'string' },
  command: { type: 'string' },
  model: { type: 'string', multiple: true },
  'base-url': { type: 'string' },
  system: { type: 'string' },
  'max-steps': { type: 'string' },
  'max-tokens': { type: 'string' },
  temperature: { type: 'string' },
  'request-timeout': { type: 'string' },
  'token-budget': { type: 'string' },
  'max-retries': { type: 'string' },
  'judge-model': { type: 'string' },
  'judge-base-url': { type: 'string' },
  runtime: { type: 'string', default: 'auto' },
  image: { type: 'string' },
  sdk: { type: 'string', default: 'auto' },
  'trace-dir': { type: 'string' },
  timeout: { type: 'string' },
  'call-timeout': { type: 'string' },
  module: { type: 'string' },
  'allow-service-access': { type: 'boolean', default: false },
  'allow-shared-secrets': { type: 'boolean', default: false },
  'allow-environment-host': { type: 'string', multiple: true },
  'allow-agent-host': { type: 'string', multiple: true },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies ParseArgsConfig['options'];

type Options = NonNullable<ParseArgsConfig['options']>;
/** What `parse` returns: named, because the declaration build cannot name Node's own result type. */
export type ParsedArgs<O extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>
>;

export function parse<O extends Options>(argv: string[], options: O): ParsedArgs<O> {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message.replace(/^TypeError \[\w+\]: /, ''), { hint: 'see hud-studio --help' });
  }
}

export function positiveNumber(name: string, text: string | undefined, integer: boolean): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new UsageError(`--${name} must be a positive ${integer ? 'integer' : 'number'}, got "${text}"`);
  }
  return n;
}

export function numberOption(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n)) throw new UsageError(`--${name} must be a number, got "${text}"`);
  return n;
}

type CommonValues = {
  agent?: string | undefined;
  answer?: string | undefined;
  command?: string | undefined;
  runtime: string;
  image?: string | undefined;
  sdk?: string | undefined;
  'trace-dir'?: string | undefined;
  'call-timeout'?: string | undefined;
  module?: string | undefined;
  'allow-service-access': boolean;
  'allow-shared-secrets': boolean;
  'allow-environment-host'?: string[] | undefined;
  'allow-agent-host'?: string[] | undefined;
};

/** `--allow-*-host` values as Harbor reads an allowlist entry (a hostname or `*.suffix`), or a usage error. */
function hostsOption(name: string, values: string[] | undefined): string[] {
  return (values ?? []).map((text) => {
    const host = AllowedHost.safeParse(text);
    if (!host.success)
      throw new UsageError(`--${name} "${text}": ${host.error.issues[0]?.message ?? 'not a hostname'}`, {
        hint: `give a hostname such as pypi.org, or *.example.com for the names below it`,
      });
    return host.data;
  });
}

/** The run request the common flags describe (everything but the task reference). */
export function requestBase(
  values: CommonValues,
  cwd: string,
  timeoutSec: number | undefined,
): Omit<TaskRunRequest, 'ref'> {
  const { agent, answer, command } = values;
  const callSec = positiveNumber('call-timeout', values['call-timeout'], false);
  return {
    cwd,
    runtime: values.runtime,
    agent: {
      choice: {
        ...(agent !== undefined ? { agent } : {}),
        ...(answer !== undefined ? { answer } : {}),
        ...(command !== undefined ? { command } : {}),
      },
    },
    consent: { serviceAccess: values['allow-service-access'], sharedSecrets: values['allow-shared-secrets'] },
    ...extraHosts(values),
    ...(values.module ? { module: values.module } : {}),
    ...(values.image ? { image: values.image } : {}),
    sdk: parseSdkChoice(values.sdk),
    ...(values['trace-dir'] ? { traceDir: values['trace-dir'] } : {}),
    ...(timeoutSec || callSec
      ? {
          limits: {
            ...(timeoutSec ? { rolloutMs: timeoutSec * 1000 } : {}),
            ...(callSec ? { callMs: callSec * 1000 } : {}),
          },
        }
      : {}),
  };
}

function extraHosts(values: CommonValues): Pick<TaskRunRequest, 'extraHosts'> {
  const environment = hostsOption('allow-environment-host', values['allow-environment-host']);
  const agent = hostsOption('allow-agent-host', values['allow-agent-host']);
  return environment.length || agent.length ? { extraHosts: { environment, agent } } : {};
}
