/**
 * Where the bundled Python runtime (runtime/python: the `hud` SDK subset and
 * the `hud_studio` helpers) lives. Found by walking up from this file, so it
 * works from source under tsx (client/src/engine/) and from the esbuild
 * bundles in dist/ (and the packaged extension, which ships runtime/ beside
 * dist/). HUD_STUDIO_RUNTIME_DIR overrides it.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { HudStudioError } from './errors';

let cached: string | undefined;

export function runtimePythonDir(): string {
  const override = process.env['HUD_STUDIO_RUNTIME_DIR'];
  if (override) return resolve(override);
  if (cached) return cached;
  const start = typeof __dirname === 'string' ? __dirname : process.cwd();
  for (let dir = start; ; dir = dirname(dir)) {
    const candidate = join(dir, 'runtime', 'python');
    if (existsSync(join(candidate, 'hud'))) return (cached = candidate);
    if (dirname(dir) === dir) break;
  }
  throw new HudStudioError('provider', `the bundled Python runtime (runtime/python) was not found above ${start}`, {
    hint: 'reinstall HUD Studio, or set HUD_STUDIO_RUNTIME_DIR to the folder that holds runtime/python/hud',
  });
}
