/**
 * A task's compose file as Compose itself will read it when the run starts:
 * its `${VAR}`s filled from this machine's environment and the project's
 * `.env`, YAML merge keys (`<<: *base`) and `extends` applied, relative
 * paths made absolute. The file as written can hide what it reaches
 * (`${HOME}/.ssh:/keys` reads as a named volume, a merged `privileged: true`
 * as nothing), so the host-access check judges this reading too
 * (docs/security.md, "Compose files that reach the host").
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { CancelledError, HudStudioError } from '../errors';
import { runTool, toolFailure } from '../execa';
import type { ComposeDoc } from '../../../../common/compose/hostAccess';
import { detectComposeCli } from './composeCli';

const CONFIG_TIMEOUT_MS = 60_000;

/**
 * `doc`: the file with our base `main` laid under the task's (Compose refuses a service without an image);
 * `scratch`: a private folder for the copy Compose reads; `env`: the run's own Compose environment (compose.ts),
 * so that variables resolve as they will there.
 */
export async function composeAsRun(
  composeFile: string,
  doc: Record<string, unknown>,
  projectDirectory: string,
  scratch: string,
  env: Record<string, string>,
  signal?: AbortSignal,
): Promise<ComposeDoc> {
  const cli = await detectComposeCli();
  const copy = join(scratch, 'as-written.yaml');
  writeFileSync(copy, stringify(doc), 'utf8');
  const r = await runTool([...cli.argv, '--project-directory', projectDirectory, '--file', copy, 'config'], {
    cwd: projectDirectory,
    env,
    timeoutMs: CONFIG_TIMEOUT_MS,
    ...(signal ? { signal } : {}),
  });
  if (signal?.aborted) throw new CancelledError('compose config');
  const resolved: unknown = r.exitCode === 0 ? parse(r.stdout, { merge: true }) : undefined;
  const services = (resolved as { services?: unknown } | undefined)?.services;
  if (!services || typeof services !== 'object') {
    const { why, tail } = toolFailure(r, CONFIG_TIMEOUT_MS, 8);
    throw new HudStudioError(
      'harbor-config',
      `${composeFile}: Compose cannot read it (\`${cli.argv.join(' ')} config\` ${why})${tail ? `:\n${tail}` : ''}`,
      {
        location: { file: composeFile },
        hint: `run \`${cli.argv.join(' ')} config\` in ${projectDirectory} and fix what it reports`,
      },
    );
  }
  return resolved as ComposeDoc;
}
