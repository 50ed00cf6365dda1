/**
 * `runtime_config` of a task as the discovery helper reports it, checked
 * before any provider reads it (docs/hud-protocol.md, "Tasks"). Known keys
 * get their types checked; keys this engine does not know are kept, so a
 * newer SDK's additions reach the providers instead of failing the load.
 */
import { z } from 'zod';
import { HudStudioError, type ErrorLocation } from './errors';

const positive = z.number().positive();

export const RuntimeResourcesSchema = z.looseObject({
  cpu: positive.nullish(),
  memory_mb: z.number().int().positive().nullish(),
});

export const RuntimeLimitsSchema = z.looseObject({
  startup_timeout_s: positive.nullish(),
  run_timeout_s: positive.nullish(),
});

/** A compose file path, `true` (the file beside env.py), or a table naming the file and consent to the socket. */
export const RuntimeComposeSchema = z.union([
  z.string().min(1),
  z.boolean(),
  z.looseObject({
    file: z.string().min(1).optional(),
    path: z.string().min(1).optional(),
    service_access: z.boolean().optional(),
  }),
]);

export const RuntimeConfigSchema = z.looseObject({
  image: z.string().min(1).nullish(),
  compose: RuntimeComposeSchema.nullish(),
  service_access: z.boolean().nullish(),
  resources: RuntimeResourcesSchema.nullish(),
  limits: RuntimeLimitsSchema.nullish(),
  /** The environment calls models itself: its actor substrate gets a model gateway of its own (docs/models.md). */
  needs_models: z.boolean().nullish(),
});

export type RuntimeConfig = z.infer<typeof RuntimeConfigSchema>;

/**
 * Checks a task's `runtime_config` (null: none). Bad values are a task-load
 * error that names the key, what it holds and where the task is defined.
 */
export function parseRuntimeConfig(raw: unknown, task: string, location: ErrorLocation): RuntimeConfig | null {
  if (raw === null || raw === undefined) return null;
  const parsed = RuntimeConfigSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const key = ['runtime_config', ...(issue?.path ?? []).map(String)].join('.');
  throw new HudStudioError('task-load', `${key} of task ${task} is invalid: ${issue?.message ?? 'unexpected value'}`, {
    location: { ...location, key },
    hint:
      'runtime_config takes image (text), compose (path, true or a table), resources {cpu, memory_mb} and limits ' +
      '{startup_timeout_s, run_timeout_s} in positive numbers, and needs_models (true or false)',
  });
}
