/**
 * File paths and URIs. Files are keyed by absolute native path; URIs are
 * written the way VS Code writes them (every character outside
 * [A-Za-z0-9-._~/] percent-encoded) so the client matches them verbatim.
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';

/** A normalized absolute POSIX path of characters a URI keeps as they are: resolving and encoding it change nothing. */
const PLAIN_PATH = /^(?:\/(?!\.\.?(?:\/|$))[A-Za-z0-9\-._~]+)+$/;

export function pathToUri(path: string): string {
  // The common case, once per indexed file at start-up.
  if (sep === '/' && PLAIN_PATH.test(path)) return `file://${path}`;
  let p = resolve(path).split(sep).join('/');
  if (!p.startsWith('/')) p = `/${p}`; // Windows drive paths
  const encoded = p
    .split('/')
    .map((seg) => encodeURIComponent(seg).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`))
    .join('/');
  return `file://${encoded}`;
}

export function uriToPath(uri: string): string | undefined {
  if (!uri.startsWith('file://')) return undefined;
  let rest = uri.slice('file://'.length);
  const slash = rest.indexOf('/');
  if (slash > 0) rest = rest.slice(slash); // drop an authority (rare for file URIs)
  let p: string;
  try {
    p = decodeURIComponent(rest);
  } catch {
    return undefined;
  }
  if (/^\/[A-Za-z]:/.test(p)) p = p.slice(1); // /c:/x -> c:/x
  return resolve(p);
}

/**
 * `path` below `dir` when it plainly is (`dir` + separator + a path without `..`
 * segments); undefined means "ask path.relative". Saves its resolve() calls
 * for the paths the index mostly sees, which are already normalized.
 */
function plainlyBelow(dir: string, path: string): string | undefined {
  if (path.length <= dir.length + 1 || path.charCodeAt(dir.length) !== sep.charCodeAt(0) || !path.startsWith(dir))
    return undefined;
  const rel = path.slice(dir.length + 1);
  const odd =
    rel.includes('..') ||
    rel.startsWith(sep) ||
    rel.includes(sep + sep) ||
    rel.startsWith(`.${sep}`) ||
    rel.includes(`${sep}.${sep}`);
  return odd ? undefined : rel;
}

/** POSIX path of `path` relative to the deepest root containing it. */
export function workspaceRelative(roots: readonly string[], path: string): string {
  let best: string | undefined;
  for (const root of roots) {
    const rel = plainlyBelow(root, path) ?? relative(root, path);
    if (rel && !rel.startsWith('..') && !isAbsolute(rel) && (best === undefined || rel.length < best.length))
      best = rel;
  }
  const rel = best ?? path;
  return sep === '/' ? rel : rel.split(sep).join('/');
}

export function isUnder(dir: string, path: string): boolean {
  if (plainlyBelow(dir, path) !== undefined) return true;
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
