/** In-memory workspaces for the language-server tests (no disk, no VS Code). */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Analyzer, type AnalyzerOptions } from '../../../server/src/analysis/analyzer';
import type { FileProblem } from '../../../server/src/analysis/facts';
import type { TreeKeeping } from '../../../server/src/analysis/treeKeeping';

export const ROOT = '/ws';

export interface MemoryWorkspace {
  analyzer: Analyzer;
  /** Paths that exist "on disk" for Harbor's file checks. */
  existing: Set<string>;
  path(rel: string): string;
  problems(rel: string): FileProblem[];
  codes(rel: string): string[];
}

/** Builds a workspace at /ws from `{relativePath: text}`; extra paths only exist (Harbor's implied files). */
export async function workspace(
  files: Record<string, string | Uint8Array>,
  alsoExisting: string[] = [],
  options: Pick<AnalyzerOptions, 'parseBudget' | 'treeKeeping'> = {},
): Promise<MemoryWorkspace> {
  const existing = new Set<string>([...Object.keys(files), ...alsoExisting].map((r) => join(ROOT, r)));
  const analyzer = await Analyzer.create({ ...options, roots: [ROOT], host: { exists: (p) => existing.has(p) } });
  analyzer.setFiles(Object.entries(files).map(([rel, text]) => [join(ROOT, rel), text]));
  const path = (rel: string) => join(ROOT, rel);
  return {
    analyzer,
    existing,
    path,
    problems: (rel) => analyzer.workspace.problems(path(rel)),
    codes: (rel) => analyzer.workspace.problems(path(rel)).map((p) => p.code),
  };
}

/** Every closed file's tree freed right after its parse (treeKeeping.ts keeps the first files' trees). */
export const FREE_AT_PARSE: TreeKeeping = { keepTrees: () => false, noteExtracted: () => undefined };

/** Dedent a template literal so Python sources can be written inline. */
export function py(strings: TemplateStringsArray, ...values: unknown[]): string {
  const raw = strings.reduce((acc, s, i) => acc + s + (i < values.length ? String(values[i]) : ''), '');
  const lines = raw.replace(/^\n/, '').split('\n');
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => /^ */.exec(l)![0].length));
  return lines.map((l) => l.slice(indent)).join('\n');
}

export const ENV_HEADER = 'from hud import Environment\n\nenv = Environment("workspace")\n';

/** An environment with one template, `solve(level: int)`, that prompts and scores 1.0; tests add their tasks. */
export const SOLVE_ENV =
  ENV_HEADER +
  py`

    @env.template()
    async def solve(level: int):
        yield "go"
        yield 1.0

  `;

/** The repository's own folder, whose Python files (examples, the runtime, fixtures) tests read as a corpus. */
export const REPO = join(__dirname, '..', '..', '..');

/** Every `.py` file under `dir` (under 400 KB), skipping dependencies and build output. */
export function pythonFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === '.git' || name === 'dist' || name.startsWith('.hud-studio')) continue;
    const path = join(dir, name);
    const st = statSync(path);
    if (st.isDirectory()) pythonFiles(path, out);
    else if (name.endsWith('.py') && st.size < 400_000) out.push(path);
  }
  return out;
}
