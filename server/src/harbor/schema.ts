/**
 * The `task.toml` schema of a Harbor task directory (docs/harbor.md),
 * shared by the language server (diagnostics) and the engine (trial runner).
 * Limits Harbor would default (cpus, memory, storage) stay undefined unless the
 * task declares them, so the engine only applies or warns about limits a task
 * author actually asked for.
 */
import { z } from 'zod';

export const NETWORK_MODES = ['public', 'no-network', 'allowlist'] as const;
export type HarborNetworkMode = (typeof NETWORK_MODES)[number];

export const ENVIRONMENT_MODES = ['shared', 'separate'] as const;
export type EnvironmentMode = (typeof ENVIRONMENT_MODES)[number];

export const DEFAULT_AGENT_TIMEOUT_SEC = 600;
export const DEFAULT_VERIFIER_TIMEOUT_SEC = 600;
export const DEFAULT_BUILD_TIMEOUT_SEC = 600;
export const DEFAULT_COLLECT_TIMEOUT_SEC = 60;
export const DEFAULT_COLLECT_SERVICE = 'main';

const positiveSeconds = z.number().positive();
const absolutePath = z.string().refine((p) => p.startsWith('/'), { message: 'must be an absolute path (starting with /)' });
const stringMap = z.record(z.string(), z.string());

const networkMode = z.enum(NETWORK_MODES, {
  error: (issue) =>
    `unknown network mode ${JSON.stringify(issue.input)}; valid modes are ${NETWORK_MODES.map((m) => `"${m}"`).join(', ')}`,
});

export const Healthcheck = z.union([
  z.string().min(1).transform((command) => ({ command })),
  z.strictObject({
    command: z.string().min(1),
    interval_sec: positiveSeconds.optional(),
    timeout_sec: positiveSeconds.optional(),
    retries: z.number().int().nonnegative().optional(),
    start_period_sec: z.number().nonnegative().optional(),
  }),
]);

/** `[environment]` and `[verifier.environment]`. */
export const EnvironmentConfig = z.strictObject({
  docker_image: z.string().min(1).optional(),
  build_timeout_sec: positiveSeconds.default(DEFAULT_BUILD_TIMEOUT_SEC),
  cpus: z.number().positive().optional(),
  memory_mb: z.number().int().positive().optional(),
  storage_mb: z.number().int().positive().optional(),
  gpus: z.number().int().nonnegative().default(0),
  env: stringMap.default({}),
  workdir: absolutePath.optional(),
  user: z.union([z.string().min(1), z.number().int().nonnegative()]).transform(String).optional(),
  network_mode: networkMode.default('public'),
  allowed_hosts: z.array(z.string().min(1)).default([]),
  healthcheck: Healthcheck.optional(),
});
export type EnvironmentConfig = z.infer<typeof EnvironmentConfig>;

export const CollectHook = z.strictObject({
  command: z.string().min(1),
  service: z.string().min(1).default(DEFAULT_COLLECT_SERVICE),
  timeout_sec: positiveSeconds.default(DEFAULT_COLLECT_TIMEOUT_SEC),
  user: z.union([z.string().min(1), z.number().int().nonnegative()]).transform(String).optional(),
});
export type CollectHook = z.infer<typeof CollectHook>;

export const ArtifactSpec = z.union([
  absolutePath.transform((source) => ({ source, destination: undefined, exclude: [] as string[], service: DEFAULT_COLLECT_SERVICE })),
  z.strictObject({
    source: absolutePath,
    /** Relative to the trial's artifacts/ folder; default: the source path without its leading slash. */
    destination: z.string().min(1).optional(),
    exclude: z.array(z.string().min(1)).default([]),
    service: z.string().min(1).default(DEFAULT_COLLECT_SERVICE),
  }),
]);
export type ArtifactSpec = z.infer<typeof ArtifactSpec>;

const userField = z.union([z.string().min(1), z.number().int().nonnegative()]).transform(String).optional();

export const AgentConfig = z.strictObject({
  timeout_sec: positiveSeconds.default(DEFAULT_AGENT_TIMEOUT_SEC),
  user: userField,
  /** Overrides `[environment] network_mode` while the agent works. */
  network_mode: networkMode.optional(),
});

const VerifierBase = z.strictObject({
  timeout_sec: positiveSeconds.default(DEFAULT_VERIFIER_TIMEOUT_SEC),
  env: stringMap.default({}),
  user: userField,
  environment_mode: z.enum(ENVIRONMENT_MODES).optional(),
  collect: z.array(CollectHook).default([]),
  environment: EnvironmentConfig.optional(),
});

export const TaskInfo = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*$/, { message: 'must look like "org/name"' })
    .optional(),
  description: z.string().optional(),
  authors: z
    .array(z.union([z.string(), z.strictObject({ name: z.string(), email: z.string().optional() })]))
    .default([]),
  keywords: z.array(z.string()).default([]),
});

/** The raw document shape (before the shared/separate rule is applied). */
export const TaskTomlDocument = z.strictObject({
  schema_version: z.union([z.string(), z.number()]).transform(String).optional(),
  /** Older Harbor tasks call it `version`. */
  version: z.union([z.string(), z.number()]).transform(String).optional(),
  artifacts: z.array(ArtifactSpec).default([]),
  task: TaskInfo.default({ authors: [], keywords: [] }),
  metadata: z.record(z.string(), z.unknown()).default({}),
  agent: AgentConfig.default({ timeout_sec: DEFAULT_AGENT_TIMEOUT_SEC }),
  verifier: VerifierBase.default({ timeout_sec: DEFAULT_VERIFIER_TIMEOUT_SEC, env: {}, collect: [] }),
  environment: EnvironmentConfig.default(() => EnvironmentConfig.parse({})),
  /** Harbor keeps solution settings (e.g. env for solve.sh) here; accepted and passed to the oracle. */
  solution: z.strictObject({ env: stringMap.default({}) }).optional(),
});

/** A validated task.toml with every default filled in and the verification mode decided. */
export interface HarborTaskConfig {
  schemaVersion: string | undefined;
  artifacts: ArtifactSpec[];
  task: z.infer<typeof TaskInfo>;
  metadata: Record<string, unknown>;
  agent: z.infer<typeof AgentConfig>;
  verifier: {
    timeoutSec: number;
    env: Record<string, string>;
    user: string | undefined;
    environmentMode: EnvironmentMode;
    /** True when the mode was implied by a [verifier.environment] table. */
    environmentModeImplied: boolean;
    collect: CollectHook[];
    /** Only in separate mode; defaults filled in. */
    environment: EnvironmentConfig | undefined;
  };
  environment: EnvironmentConfig;
  solution: { env: Record<string, string> };
}
