/**
 * The extension's settings (`hudStudio.*`), parsed from whatever the user
 * wrote. A bad value never breaks a run: it falls back to the default and is
 * reported once as a problem naming the setting and the fix. No `vscode`
 * import, so the parsing is unit-tested directly.
 */
import { z } from 'zod';
import { AllowedHost } from '../../common/harbor/schema';

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

const MODEL_NAME = /^(openai|anthropic|hud|openai-compatible)\/.+$/;
/** One model for editor runs: `PROVIDER/MODEL`, or with the server's address (docs/models.md). */
const ModelEntry = z.union([
  z.string().regex(MODEL_NAME, 'expected PROVIDER/MODEL'),
  z
    .object({ model: z.string().regex(MODEL_NAME, 'expected PROVIDER/MODEL'), baseUrl: z.string().url().optional() })
    .strict(),
]);
export type ModelSetting = { model: string; baseUrl?: string | undefined };

/** Where VS Code keeps a setting (user, workspace, folder), as package.json declares it. */
type Scope = 'application' | 'machine-overridable' | 'resource';

/**
 * What the Settings editor shows for a setting. It rides on the schema as zod
 * metadata, so package.json's `contributes.configuration` is generated from
 * this file (`npm run gen:config`) and a unit test fails when they differ.
 */
interface Contribution {
  markdownDescription: string;
  scope: Scope;
  enumDescriptions?: string[];
  patternErrorMessage?: string;
  /** The editor flags unknown keys; the parser only drops them (one typo must not reset the others). */
  additionalProperties?: false;
}

const setting = <T extends z.ZodType>(schema: T, contribution: Contribution): T => schema.meta({ ...contribution });

const TCP_URL = /^(tcp:\/\/[^\s:/]+:\d{1,5})?$/;

const timeout = (seconds: number, description: string) => z.number().positive().default(seconds).meta({ description });

const fields = {
  runtime: setting(z.enum(RUNTIMES).default('auto'), {
    markdownDescription: 'Where rollouts run.',
    scope: 'resource',
    enumDescriptions: [
      'Docker when a daemon answers, otherwise the local runtime (with a notice).',
      'A fresh container per phase (isolation by container). Fails with a fix when Docker is missing.',
      'A subprocess in a private temporary copy of the folder (isolation by process only).',
      'A server you started yourself at `#hudStudio.runtimeUrl#` (borrowed; the verifier may share it).',
    ],
  }),
  runtimeUrl: setting(z.string().trim().regex(TCP_URL, 'expected tcp://HOST:PORT').default(''), {
    markdownDescription:
      'Address of a served environment (`tcp://HOST:PORT`) used when `#hudStudio.runtime#` is `url`.',
    scope: 'resource',
    patternErrorMessage: 'Expected tcp://HOST:PORT',
  }),
  dockerHost: setting(z.string().trim().default(''), {
    markdownDescription:
      'Docker daemon to use, like `DOCKER_HOST` (e.g. `unix:///var/run/docker.sock`). ' +
      'Empty: `DOCKER_HOST` or the default socket.',
    scope: 'machine-overridable',
  }),
  imageOverrides: setting(stringMap.default({}), {
    markdownDescription:
      "Image per environment name, instead of building the folder's Dockerfile, " +
      'e.g. `{ "workspace": "my/env:latest" }`.',
    scope: 'resource',
  }),
  sdk: setting(z.enum(['auto', 'bundled', 'image']).default('auto'), {
    markdownDescription:
      'Which HUD SDK serves an `env.py`. The trace and the Runs view say which one served each phase. ' +
      'See `docs/sdk-compatibility.md`.',
    scope: 'resource',
    enumDescriptions: [
      "The image's own HUD SDK v6 when it can serve (the environment's own python for local runs), " +
        "else HUD Studio's bundled runtime.",
      "Always HUD Studio's bundled runtime.",
      "Only the image's own HUD SDK: a run fails when the image has none that can serve.",
    ],
  }),
  passThreshold: setting(z.number().default(1), {
    markdownDescription:
      'A task passes in the Testing view when its reward is at least this value; below it fails. ' +
      'Errored rollouts are always errored.',
    scope: 'resource',
  }),
  maxConcurrency: setting(z.number().int().min(1).max(64).default(2), {
    markdownDescription: 'How many rollouts of a batch (a file, a folder, Run All) run at the same time.',
    scope: 'resource',
  }),
  timeouts: setting(
    z
      .object({
        startupSeconds: timeout(120, 'Budget for building and starting a substrate and its server (per phase).'),
        phaseSeconds: timeout(1800, 'Budget for one phase (actor or verifier), agent included.'),
        rolloutSeconds: timeout(3600, 'Budget for the whole rollout.'),
        callSeconds: timeout(600, 'Budget for each tasks.start and tasks.grade (a template that never yields).'),
      })
      .default({ startupSeconds: 120, phaseSeconds: 1800, rolloutSeconds: 3600, callSeconds: 600 }),
    {
      markdownDescription: "Timeouts of a rollout, in seconds. A task's own `runtime_config.limits` win.",
      scope: 'resource',
      additionalProperties: false,
    },
  ),
  traceFolder: setting(z.string().trim().min(1).default('.hud-studio/traces'), {
    markdownDescription:
      'Folder (relative to the workspace folder, or absolute) where every rollout writes its `*.hudtrace.json` trace.',
    scope: 'resource',
  }),
  agent: setting(z.enum(AGENT_KINDS).default('ask'), {
    markdownDescription: 'The agent for runs started from the editor (CodeLens, Environments view).',
    scope: 'resource',
    enumDescriptions: [
      'Show the prompt and type the answer yourself (editor runs only).',
      'Answer with `#hudStudio.agentAnswer#`.',
      'Run `#hudStudio.agentCommand#` with the prompt on stdin; its stdout is the answer.',
      'Answer nothing (a sane task scores 0).',
    ],
  }),
  agentAnswer: setting(z.string().default(''), {
    markdownDescription: 'The answer the `fixed` agent sends.',
    scope: 'resource',
  }),
  agentCommand: setting(z.string().default(''), {
    markdownDescription:
      'Shell command of the `command` agent: it gets the prompt on stdin and `HUD_PROMPT`; its stdout is the answer.',
    scope: 'resource',
  }),
  batchAgent: setting(z.enum(BATCH_AGENT_KINDS).default('fixed'), {
    markdownDescription:
      'The agent for batch runs (a file, Run All, the Testing view) when `#hudStudio.agent#` is `ask`: ' +
      'a batch never asks once per task.',
    scope: 'resource',
  }),
  harborAgent: setting(z.enum(HARBOR_AGENT_KINDS).default('oracle'), {
    markdownDescription:
      'The agent for Harbor tasks (`task.toml`) when the run asks for `ask` or `fixed`, ' +
      'which have nothing to type into a container.',
    scope: 'resource',
    enumDescriptions: [
      "Run the task's own solution/solve.sh (a sane task scores 1).",
      'Do nothing (a sane task scores 0).',
      "Run `#hudStudio.agentCommand#` in the task's environment.",
    ],
  }),
  harborAllowEnvironmentHosts: setting(z.array(AllowedHost).default([]), {
    markdownDescription:
      'Hosts a Harbor task may reach besides its `allowed_hosts`, from its `[environment]` policy on (and a ' +
      "separate verifier that inherits it), as Harbor's `--allow-environment-host`: a hostname, or " +
      '`*.example.com` for the names below it. A `no-network` policy becomes an allowlist of these hosts; a ' +
      '`public` one stays public.',
    scope: 'resource',
  }),
  harborAllowAgentHosts: setting(z.array(AllowedHost).default([]), {
    markdownDescription:
      "Hosts a Harbor task's agent may reach besides its `allowed_hosts` (its container only), as Harbor's " +
      '`--allow-agent-host`; see `#hudStudio.harborAllowEnvironmentHosts#`.',
    scope: 'resource',
  }),
  envFiles: setting(stringMap.default({}), {
    markdownDescription:
      "A `.env` file per environment name, loaded only into that environment's substrates, " +
      'e.g. `{ "judge": ".env.judge" }`. Secrets belong in **HUD Studio: Set Environment Secret** instead.',
    scope: 'resource',
  }),
  allowServiceAccess: setting(z.boolean().default(false), {
    markdownDescription:
      'Consent to mount the Docker socket into the `main` service of a task whose `runtime_config.compose` sets ' +
      '`service_access = true`, and to run a task whose own compose file binds the socket or host files ' +
      "outside the task's folder, hands a service the host's devices or variables, runs it privileged or with " +
      "capabilities or security options that open the host's kernel, or shares the namespaces of the host or " +
      "of containers not the task's, and to fill that file's variables from your whole environment " +
      '(HUD and Harbor tasks alike). Code there then ' +
      'controls this machine, not just its container. The socket is only ever given by a local daemon; ' +
      'a user setting only (a workspace cannot grant it to itself).',
    scope: 'application',
  }),
  allowSharedSecrets: setting(z.boolean().default(false), {
    markdownDescription:
      "Give a verifier that runs on the actor's own substrate (same environment, or a shared Harbor verifier) " +
      'the secrets meant for it anyway. The actor could read them; without this they are withheld and the ' +
      'trace says so. A user setting only.',
    scope: 'application',
  }),
  models: setting(
    z
      .array(ModelEntry)
      .default([])
      .transform((list): ModelSetting[] => list.map((m) => (typeof m === 'string' ? { model: m } : m))),
    {
      markdownDescription:
        'Models for the `llm` agent (`PROVIDER/MODEL`, or `{ "model": ..., "baseUrl": ... }` for a local server). ' +
        'Each gets a run profile in the Testing view. Keys come from **HUD Studio: Set OpenAI/Anthropic/HUD API Key** ' +
        'or `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `HUD_API_KEY`; never put a key here.',
      scope: 'resource',
    },
  ),
} as const;

type Fields = typeof fields;
export type Settings = { [K in keyof Fields]: z.output<Fields[K]> };

/** Every setting, from the schema: the reader cannot leave one out. */
export const SETTING_KEYS = Object.keys(fields) as (keyof Fields)[];

export const DEFAULT_SETTINGS: Settings = parseSettings({}).settings;

/** Reads every setting the schema declares through `get` (VS Code's `getConfiguration('hudStudio').get`). */
export function readRawSettings(get: (key: string) => unknown): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) raw[key] = get(key);
  return raw;
}

/** package.json's `contributes.configuration`, generated from the schema (scripts/gen-config.ts). */
export function configurationContribution(): { title: string; properties: Record<string, unknown> } {
  const properties: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) {
    const { $schema: _draft, ...schema } = z.toJSONSchema(fields[key], { io: 'input' });
    properties[`hudStudio.${key}`] = withoutPropertyNames(schema);
  }
  return { title: 'HUD Studio', properties };
}

/** VS Code's settings editor knows JSON Schema draft 7: map keys are strings anyway. */
function withoutPropertyNames(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutPropertyNames);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (k !== 'propertyNames') out[k] = withoutPropertyNames(v);
  return out;
}

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
