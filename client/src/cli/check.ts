/**
 * `hud-studio check [PATH...] [--json]`: the language server's analysis,
 * headless. Every file under the workspace the paths belong to is indexed
 * (so cross-module links resolve), and problems are reported for the files
 * under PATH. Exit 1 if any error, 0 otherwise, 2 on bad usage.
 */
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { Analyzer, decodeText } from '../../../server/src/analysis/analyzer';
import type { FileFacts, FileProblem, Range, Severity } from '../../../server/src/analysis/facts';
import { importProblems } from '../../../server/src/analysis/importability';
import { createPythonParser, type Parser } from '../../../server/src/analysis/treeSitter';
import { isUnder } from '../../../server/src/analysis/paths';
import { listIndexableFiles, readFiles } from '../../../server/src/analysis/scan';
import { errorMessage, UsageError } from '../engine/errors';
import { GOLDEN_CODE, goldenExposure } from './checkGolden';
import { ROOT_AGENT_CODE, SEARCH_PATH_CODE, rootAgentFindings, searchPathFindings } from './checkDockerfile';
import { EXIT, type CliIO } from './io';
import { parse } from './options';

export const CHECK_USAGE = `usage: hud-studio check [PATH...] [--json]

Checks env.py files, .json/.jsonl task files and Harbor task directories
without running them (the same checks as the editor). PATH defaults to the
current folder.

  --json    print an array of {file, line, column, severity, code, message}
  --golden  run the golden answers of <env>.golden.jsonl files through the graders
            (no agent; docs/grader-workbench.md); --runtime R picks where

Exit codes: 0 no errors, 1 errors found, 2 usage error.
`;

export interface CheckFinding {
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based, UTF-16 code units like the editor. */
  column: number;
  severity: Severity;
  code: string;
  message: string;
}

export async function runCheck(argv: string[], io: CliIO): Promise<number> {
  if (argv.includes('--golden')) {
    const { goldenCommand } = await import('./golden');
    return goldenCommand(argv, io);
  }
  let opts;
  try {
    opts = parse(argv, {
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    });
  } catch (err) {
    io.stderr.write(`hud-studio check: ${errorMessage(err)}\n`);
    return EXIT.usage;
  }
  if (opts.values.help) {
    io.stdout.write(CHECK_USAGE);
    return EXIT.ok;
  }
  let findings: CheckFinding[];
  try {
    findings = await check(opts.positionals.length ? opts.positionals : ['.'], io.cwd);
  } catch (err) {
    io.stderr.write(`hud-studio check: ${errorMessage(err)}\n`);
    return err instanceof UsageError ? EXIT.usage : EXIT.error;
  }
  if (opts.values.json) {
    io.stdout.write(`${JSON.stringify(findings, null, 2)}\n`);
  } else {
    for (const f of findings) io.stdout.write(`${f.file}:${f.line}:${f.column} ${f.severity} ${f.code} ${f.message}\n`);
    const count = (s: Severity) => findings.filter((f) => f.severity === s).length;
    io.stderr.write(`${count('error')} error(s), ${count('warning')} warning(s), ${count('info')} info\n`);
  }
  return findings.some((f) => f.severity === 'error') ? EXIT.error : EXIT.ok;
}

/** Analyses PATHs (files or folders, relative to cwd) and returns the findings, sorted. */
export async function check(paths: readonly string[], cwd: string): Promise<CheckFinding[]> {
  const targets: { path: string; isDir: boolean }[] = [];
  for (const p of paths) {
    const abs = resolve(cwd, p);
    const s = await stat(abs).catch(() => undefined);
    if (!s) throw new UsageError(`${p} does not exist`, { hint: 'pass existing files or folders' });
    targets.push({ path: abs, isDir: s.isDirectory() });
  }
  const roots: string[] = [];
  for (const t of targets) {
    const root = isUnder(cwd, t.path) ? cwd : t.isDir ? t.path : dirname(t.path);
    if (!roots.some((r) => isUnder(r, root))) roots.push(root);
  }
  const analyzer = await Analyzer.create({ roots });
  const parser = await createPythonParser();
  try {
    const files = await listIndexableFiles(roots);
    for (const t of targets) if (!t.isDir && !files.includes(t.path)) files.push(t.path);
    const contents = await readFiles(files);
    analyzer.setFiles(contents);
    const texts = new Map(contents);
    const findings: CheckFinding[] = [];
    for (const path of analyzer.workspace.paths()) {
      if (!targets.some((t) => isUnder(t.path, path))) continue;
      const file = relative(cwd, path).split(sep).join('/') || '.';
      const problems = [
        ...analyzer.workspace.problems(path),
        ...(await importabilityOf(path, analyzer.workspace.facts(path), parser)),
      ];
      const found = (p: { range: Range; message: string }, severity: Severity, code: string) =>
        findings.push({
          file,
          line: p.range.start.line + 1,
          column: p.range.start.character + 1,
          severity,
          code,
          message: p.message,
        });
      for (const p of problems) found(p, p.severity, p.code);
      const content = texts.get(path);
      const tasks = analyzer.workspace.link(path)?.tasks ?? [];
      if (tasks.length && content !== undefined && (typeof content === 'string' || content instanceof Uint8Array)) {
        for (const g of goldenExposure(file, analyzer.workspace.uriOf(path), decodeText(content), tasks))
          found(g, 'warning', GOLDEN_CODE);
        const dockerfile = await readFile(join(dirname(path), 'Dockerfile'), 'utf8').catch(() => undefined);
        for (const g of rootAgentFindings(dockerfile, tasks)) found(g, 'warning', ROOT_AGENT_CODE);
        for (const g of searchPathFindings(dockerfile, tasks)) found(g, 'warning', SEARCH_PATH_CODE);
      }
    }
    return findings.sort((a, b) =>
      a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column,
    );
  } finally {
    parser.delete();
    analyzer.dispose();
  }
}

/** A HUD module (imports hud, or is an env.py) that Python could not import at all. */
async function importabilityOf(path: string, facts: FileFacts | undefined, parser: Parser): Promise<FileProblem[]> {
  if (facts?.kind !== 'python' || !(facts.importsHud || basename(path) === 'env.py')) return [];
  const bytes = await readFile(path).catch(() => undefined);
  return bytes ? importProblems(bytes, parser) : [];
}
