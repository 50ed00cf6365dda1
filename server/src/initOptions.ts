/**
 * The language server's initialization options: what the client sends in
 * `initialize` (docs/architecture.md, "Language server"). Checked, not cast:
 * a client that sends something else gets the defaults and a log line that
 * says which option was ignored and why, never a crash.
 */
import { z } from 'zod';

export const ServerInitOptionsSchema = z.object({
  /** Folder names never scanned (defaults: node_modules, .git, .venv, __pycache__, dist, ...). */
  excludeDirs: z.array(z.string().min(1)).optional(),
  /** Whether the editor trusts the workspace (the index never runs code either way). */
  workspaceTrusted: z.boolean().optional(),
});

export type ServerInitOptions = z.infer<typeof ServerInitOptionsSchema>;

export interface ParsedInitOptions {
  options: ServerInitOptions;
  /** Why the options sent were ignored, when they were. */
  problem: string | undefined;
}

export function parseInitOptions(raw: unknown): ParsedInitOptions {
  if (raw === undefined || raw === null) return { options: {}, problem: undefined };
  const parsed = ServerInitOptionsSchema.safeParse(raw);
  if (parsed.success) return { options: parsed.data, problem: undefined };
  const issue = parsed.error.issues[0];
  const key = issue?.path.length ? issue.path.map(String).join('.') : '(options)';
  return { options: {}, problem: `initializationOptions ignored: ${key}: ${issue?.message ?? 'unexpected value'}` };
}
