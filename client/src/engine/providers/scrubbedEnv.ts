/**
 * The environment a Local substrate's processes get (docs/hud-protocol.md): an
 * allow-list of the host's variables that programs need to run at all, a
 * private HOME and TMPDIR, the Python settings the bundled runtime needs,
 * and then only the variables given for that environment. Nothing else of
 * the parent (API keys, tokens, cloud credentials) leaks in.
 */
const ALLOWED = new Set(['PATH', 'LANG', 'LANGUAGE', 'TZ', 'PYTHONHOME']);
const ALLOWED_PREFIXES = ['LC_'];

export interface ScrubbedEnvOptions {
  home: string;
  tmp: string;
  /** Prepended to PYTHONPATH (the bundled runtime); omitted to serve with the image's own SDK. */
  pythonPath?: string;
  /** The environment's own variables; win over everything else. */
  extra?: Record<string, string>;
}

export function scrubbedEnv(parent: NodeJS.ProcessEnv, opts: ScrubbedEnvOptions): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    if (ALLOWED.has(name) || ALLOWED_PREFIXES.some((p) => name.startsWith(p))) env[name] = value;
  }
  env['PATH'] ??= '/usr/local/bin:/usr/bin:/bin';
  env['HOME'] = opts.home;
  env['TMPDIR'] = opts.tmp;
  env['PYTHONUNBUFFERED'] = '1';
  env['PYTHONDONTWRITEBYTECODE'] = '1';
  env['PYTHONIOENCODING'] = 'utf-8';
  if (opts.pythonPath) env['PYTHONPATH'] = opts.pythonPath;
  return { ...env, ...(opts.extra ?? {}) };
}
