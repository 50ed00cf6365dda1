/**
 * The extension's settings (`hudStudio.*`), parsed from whatever the user
 * wrote. A bad value never breaks a run: it falls back to the default and is
 * reported once as a problem naming the setting and the fix. No `vscode`
 * import, so the parsing is unit-tested directly.
 */
import { z } from 'zod';

export const RUNTIMES = ['auto', 'docker', 'local', 'url'] as const;
export const AGENT_KINDS = ['ask', 'fixed', 'command', 'nop'] as const;
/** Agents that never ask a person: the only ones a batch run may use. */
export const BATCH_AGENT_KINDS = ['fixed', 'command', 'nop'] as const;
/** Harbor trials: `oracle` runs the task's own solution/solve.sh. */
export const HARBOR_AGENT_KINDS = ['oracle', 'nop', 'command'] as const;

export type RuntimeSetting = (typeof RUNTIMES)[number];
export type AgentKind = (typeof AGENT_KINDS)[number];
export type BatchAgentKind = (typeof BATCH_AGENT_KINDS)[number];

const stringMap = z.record(z.string(), z.string());

const fields = {
  runtime: z.enum(RUNTIMES).default('auto'),
  runtimeUrl: z
    .string()
    .trim()
    .refine((s) => s === '' || /^tcp:\/\/[^\s:/]+:\d{1,5}$/.test(s), 'expected tcp://HOST:PORT')
    .default(''),
  dockerHost: z.string().trim().default(''),
  imageOverrides: stringMap.default({}),
  passThreshold: z.number().default(1),
  maxConcurrency: z.number().int().min(1).max(64).default(2),
  timeouts: z
    .object({
      startupSeconds: z.number().positive().default(120),
      phaseSeconds: z.number().positive().default(1800),
      rolloutSeconds: z.number().positive().default(3600),
      callSeconds: z.number().positive().default(600),
    })
    .default({ startupSeconds: 120, phaseSeconds: 1800, rolloutSeconds: 3600, callSeconds: 600 }),
  traceFolder: z.string().trim().min(1).default('.hud-studio/traces'),
  agent: z.enum(AGENT_KINDS).default('ask'),
  agentAnswer: z.string().default(''),
  agentCommand: z.string().default(''),
  batchAgent: z.enum(BATCH_AGENT_KINDS).default('fixed'),
  harborAgent: z.enum(HARBOR_AGENT_KINDS).default('oracle'),
  envFiles: stringMap.default({}),
  allowServiceAccess: z.boolean().default(false),
  allowSharedSecrets: z.boolean().default(false),
} as const;

type Fields = typeof fields;
export type Settings = { [K in keyof Fields]: z.output<Fields[K]> };

export const DEFAULT_SETTINGS: Settings = parseSettings({}).settings;

export interface SettingsProblem {
  /** Full setting id, e.g. `hudStudio.maxConcurrency`. */
  setting: string;
  message: string;
}

/**
 * Parses raw setting values (keys without the `hudStudio.` prefix; nested
 * `timeouts` as an object). Unknown keys are ignored; each invalid key falls
 * back to its default on its own, so one typo does not reset the others.
 */
export function parseSettings(raw: Record<string, unknown>): { settings: Settings; problems: SettingsProblem[] } {
  const problems: SettingsProblem[] = [];
  const out: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(fields) as [keyof Fields, z.ZodType][]) {
    const value = raw[key] === null ? undefined : raw[key];
    const r = schema.safeParse(value);
    if (r.success) {
      out[key] = r.data;
      continue;
    }
    const issue = r.error.issues[0];
    const sub = issue && issue.path.length ? `.${issue.path.join('.')}` : '';
    const fallback = schema.parse(undefined);
    problems.push({
      setting: `hudStudio.${key}${sub}`,
      message: `hudStudio.${key}${sub}: ${issue?.message ?? 'invalid value'}; using the default ${JSON.stringify(fallback)}`,
    });
    out[key] = fallback;
  }
  return { settings: out as Settings, problems };
}

/**
 * The agent of a Harbor trial: a text answer (`ask`, `fixed`) means nothing
 * to a task checked by tests/test.sh, so those become hudStudio.harborAgent;
 * an explicit nop or command is kept.
 */
export function harborAgentOf(settings: Settings, chosen: AgentKind): (typeof HARBOR_AGENT_KINDS)[number] {
  return chosen === 'nop' || chosen === 'command' ? chosen : settings.harborAgent;
}

/** The agent a batch run (a file, a folder, "Run all") uses: never one that asks. */
export function batchAgentOf(settings: Settings): BatchAgentKind {
  return settings.agent === 'ask' ? settings.batchAgent : settings.agent;
}
