/**
 * The `task.toml` schema of a Harbor task directory (docs/harbor.md), shared
 * by the language server (diagnostics) and the engine (trial runner). It
 * accepts every key Harbor v0.13 accepts, with Harbor's defaults; limits
 * Harbor leaves unset (cpus, memory, storage) stay undefined so the engine only
 * applies or warns about limits a task author actually asked for.
 */
import { z } from 'zod';

export const NETWORK_MODES = ['public', 'no-network', 'allowlist'] as const;
export type HarborNetworkMode = (typeof NETWORK_MODES)[number];

export const ENVIRONMENT_MODES = ['shared', 'separate'] as const;
export type EnvironmentMode = (typeof ENVIRONMENT_MODES)[number];

export const TASK_OSES = ['linux', 'windows'] as const;
export type TaskOs = (typeof TASK_OSES)[number];

/** Harbor sets no agent time limit unless the task does (the run's own deadline still applies). */
export const DEFAULT_AGENT_TIMEOUT_SEC: number | undefined = undefined;
export const DEFAULT_VERIFIER_TIMEOUT_SEC = 600;
export const DEFAULT_BUILD_TIMEOUT_SEC = 600;
export const DEFAULT_COLLECT_TIMEOUT_SEC = 60;
export const DEFAULT_COLLECT_SERVICE = 'main';

/** Harbor's healthcheck defaults (Docker HEALTHCHECK-like polling). */
export const HEALTHCHECK_DEFAULTS = {
  interval_sec: 5,
  timeout_sec: 30,
  retries: 3,
  start_period_sec: 0,
  start_interval_sec: 5,
} as const;

const positiveSeconds = z.number().positive();
const absolutePath = z
  .string()
  .refine((p) => p.startsWith('/'), { message: 'must be an absolute path (starting with /)' });
const stringMap = z.record(z.string(), z.string());
const userField = z
  .union([z.string().min(1), z.number().int().nonnegative()])
  .transform(String)
  .optional();
const serviceName = z
  .string()
  .regex(/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/, { message: 'must be a Docker Compose service name' });
const noDotDot = (p: string): boolean => !p.split('/').includes('..');

const networkMode = z.enum(NETWORK_MODES, {
  error: (issue) =>
    `unknown network mode ${JSON.stringify(issue.input)}; valid modes are ${NETWORK_MODES.map((m) => `"${m}"`).join(', ')}`,
});

export const AllowedHost = z
  .string()
  // An overwrite, not a transform: the type stays a string, so a JSON Schema (the editor's settings) keeps it.
  .overwrite((h) => h.trim().toLowerCase().replace(/\.$/, ''))
  .refine((h) => /^(\*\.)?[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/.test(h), {
    message: 'must be a hostname or a "*.suffix" pattern (no scheme, port or path)',
  });

export const Healthcheck = z.union([
  z
    .string()
    .min(1)
    .transform((command) => ({ command })),
  z.strictObject({
    command: z.string().min(1),
    interval_sec: positiveSeconds.optional(),
    timeout_sec: positiveSeconds.optional(),
    retries: z.number().int().nonnegative().optional(),
    start_period_sec: z.number().nonnegative().optional(),
    start_interval_sec: positiveSeconds.optional(),
  }),
]);
export type Healthcheck = z.infer<typeof Healthcheck>;

export const McpServer = z
  .strictObject({
    name: z.string().min(1),
    transport: z
      .enum(['stdio', 'sse', 'streamable-http', 'http'])
      .default('sse')
      .transform((t) => (t === 'http' ? 'streamable-http' : t)),
    url: z.string().min(1).optional(),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).default([]),
  })
  .refine((s) => (s.transport === 'stdio' ? s.command !== undefined : s.url !== undefined), {
    message: 'an MCP server needs url (sse, streamable-http) or command (stdio)',
  });

/** `[environment]`, `[verifier.environment]` and `[steps.verifier.environment]`. */
export const EnvironmentConfig = z.strictObject({
  docker_image: z.string().min(1).optional(),
  build_timeout_sec: positiveSeconds.default(DEFAULT_BUILD_TIMEOUT_SEC),
  os: z.preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : v), z.enum(TASK_OSES)).default('linux'),
  cpus: z.number().positive().optional(),
  memory_mb: z.number().int().positive().optional(),
  storage_mb: z.number().int().positive().optional(),
  gpus: z.number().int().nonnegative().default(0),
  gpu_types: z.array(z.string().min(1)).optional(),
  tpu: z.strictObject({ type: z.string().min(1), topology: z.string().regex(/^[1-9]\d*(x[1-9]\d*)+$/) }).optional(),
  mcp_servers: z.array(McpServer).default([]),
  env: stringMap.default({}),
  skills_dir: z.string().min(1).optional(),
  workdir: absolutePath.optional(),
  user: userField,
  network_mode: networkMode.default('public'),
  allowed_hosts: z.array(AllowedHost).default([]),
  healthcheck: Healthcheck.optional(),
});
export type EnvironmentConfig = z.infer<typeof EnvironmentConfig>;

export const CollectHook = z.strictObject({
  command: z.string().min(1),
  service: serviceName.default(DEFAULT_COLLECT_SERVICE),
  timeout_sec: positiveSeconds.default(DEFAULT_COLLECT_TIMEOUT_SEC),
  user: userField,
});
export type CollectHook = z.infer<typeof CollectHook>;

const artifactDestination = z
  .string()
  .min(1)
  .refine((d) => !d.startsWith('/') && !d.includes('\\') && noDotDot(d), {
    message: 'must be a relative path with forward slashes and no ".."',
  })
  .refine((d) => d.replace(/\/+$/, '') !== 'manifest.json', {
    message: '"manifest.json" is reserved for the manifest',
  });

const artifactSource = absolutePath.refine(noDotDot, { message: 'must not contain ".." components' });

export const ArtifactSpec = z.union([
  artifactSource.transform((source) => ({
    source,
    destination: undefined,
    exclude: [] as string[],
    service: DEFAULT_COLLECT_SERVICE,
  })),
  z.strictObject({
    source: artifactSource,
    /** Relative to the trial's artifacts/ folder; default: the source path without its leading slash. */
    destination: artifactDestination.optional(),
    exclude: z.array(z.string().min(1)).default([]),
    service: serviceName.default(DEFAULT_COLLECT_SERVICE),
  }),
]);
export type ArtifactSpec = z.infer<typeof ArtifactSpec>;

/** `[agent]` and `[verifier]` may override the environment's network policy for their phase. */
const phaseNetwork = {
  network_mode: networkMode.optional(),
  allowed_hosts: z.array(AllowedHost).optional(),
};

export const AgentConfig = z.strictObject({
  /** Undefined: no limit of its own (as in Harbor). */
  timeout_sec: positiveSeconds.optional(),
  user: userField,
  ...phaseNetwork,
});
export type AgentConfig = z.infer<typeof AgentConfig>;

const VerifierBase = z.strictObject({
  timeout_sec: positiveSeconds.default(DEFAULT_VERIFIER_TIMEOUT_SEC),
  env: stringMap.default({}),
  user: userField,
  environment_mode: z.enum(ENVIRONMENT_MODES).optional(),
  collect: z.array(CollectHook).default([]),
  environment: EnvironmentConfig.optional(),
  ...phaseNetwork,
});
type VerifierBase = z.infer<typeof VerifierBase>;

const stepName = z
  .string()
  .regex(/^[A-Za-z0-9][\w.-]*$/, { message: 'must be a folder name under steps/ (letters, digits, "-", "_", ".")' });

export const StepDocument = z.strictObject({
  name: stepName,
  agent: AgentConfig.default({}),
  verifier: VerifierBase.default({ timeout_sec: DEFAULT_VERIFIER_TIMEOUT_SEC, env: {}, collect: [] }),
  min_reward: z.union([z.number(), z.record(z.string(), z.number())]).optional(),
  healthcheck: Healthcheck.optional(),
  artifacts: z.array(ArtifactSpec).default([]),
});

export const TaskInfo = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*$/, { message: 'must look like "org/name"' })
    .refine((n) => !n.includes('..'), { message: 'must not contain ".."' })
    .optional(),
  description: z.string().optional(),
  authors: z
    .array(z.union([z.string(), z.strictObject({ name: z.string(), email: z.string().optional() })]))
    .default([]),
  keywords: z.array(z.string()).default([]),
});

/** The raw document shape (after legacy keys are migrated, before the shared/separate rule is applied). */
export const TaskTomlDocument = z.strictObject({
  schema_version: z.union([z.string(), z.number()]).transform(String).optional(),
  /** Older Harbor tasks call it `version`. */
  version: z.union([z.string(), z.number()]).transform(String).optional(),
  source: z.string().optional(),
  artifacts: z.array(ArtifactSpec).default([]),
  task: TaskInfo.default({ authors: [], keywords: [] }),
  metadata: z.record(z.string(), z.unknown()).default({}),
  agent: AgentConfig.default({}),
  verifier: VerifierBase.default({ timeout_sec: DEFAULT_VERIFIER_TIMEOUT_SEC, env: {}, collect: [] }),
  environment: EnvironmentConfig.default(() => EnvironmentConfig.parse({})),
  /** Harbor keeps solution settings (e.g. env for solve.sh) here; passed to the oracle. */
  solution: z.strictObject({ env: stringMap.default({}) }).optional(),
  multi_step_reward_strategy: z.enum(['mean', 'final']).optional(),
  steps: z.array(StepDocument).min(1).optional(),
});

/** One verification pass's settings with the shared/separate rule applied. */
export interface VerifierSettings {
  timeoutSec: number;
  env: Record<string, string>;
  user: string | undefined;
  environmentMode: EnvironmentMode;
  /** True when the mode was implied by a [verifier.environment] table. */
  environmentModeImplied: boolean;
  collect: CollectHook[];
  /** Only in separate mode: its own table, else a copy of the top-level [environment]. */
  environment: EnvironmentConfig | undefined;
  /** True when `environment` is the inherited top-level [environment]. */
  environmentInherited: boolean;
  networkMode: HarborNetworkMode | undefined;
  allowedHosts: string[] | undefined;
}

export interface HarborStepConfig {
  name: string;
  agent: AgentConfig;
  verifier: VerifierSettings;
  minReward: number | Record<string, number> | undefined;
  healthcheck: Healthcheck | undefined;
  artifacts: ArtifactSpec[];
}

/** A validated task.toml with every default filled in and the verification mode decided. */
export interface HarborTaskConfig {
  schemaVersion: string | undefined;
  source: string | undefined;
  artifacts: ArtifactSpec[];
  task: z.infer<typeof TaskInfo>;
  metadata: Record<string, unknown>;
  agent: AgentConfig;
  verifier: VerifierSettings;
  environment: EnvironmentConfig;
  solution: { env: Record<string, string> };
  /** Multi-step tasks only (`[[steps]]`); undefined for a single-step task. */
  steps: HarborStepConfig[] | undefined;
  multiStepRewardStrategy: 'mean' | 'final';
}

/**
 * Harbor's rule: an explicit mode wins; a `[verifier.environment]` table
 * implies separate; a step without either inherits the task's mode.
 */
export function resolveVerifier(
  v: VerifierBase,
  topEnvironment: EnvironmentConfig,
  inherited?: { mode: EnvironmentMode; environment: EnvironmentConfig | undefined },
): VerifierSettings {
  const own = v.environment_mode ?? (v.environment ? 'separate' : undefined);
  const environmentMode = own ?? inherited?.mode ?? 'shared';
  const ownEnvironment = v.environment ?? inherited?.environment;
  const environment = environmentMode === 'separate' ? (ownEnvironment ?? structuredClone(topEnvironment)) : undefined;
  return {
    timeoutSec: v.timeout_sec,
    env: v.env,
    user: v.user,
    environmentMode,
    environmentModeImplied: v.environment_mode === undefined && v.environment !== undefined,
    collect: v.collect,
    environment,
    environmentInherited: environmentMode === 'separate' && ownEnvironment === undefined,
    networkMode: v.network_mode,
    allowedHosts: v.allowed_hosts,
  };
}
