/**
 * Reads a golden answer file from disk (its rows are parsed by
 * common/golden/rows.ts, shared with the language server).
 */
import { existsSync, readFileSync } from 'node:fs';
import { envFileFor, parseGolden, type GoldenProblem, type GoldenRow } from '../../../../common/golden/rows';
import { UsageError } from '../errors';

export interface GoldenFile {
  path: string;
  /** The env.py the rows' tasks belong to. */
  envFile: string;
  rows: GoldenRow[];
  problems: GoldenProblem[];
}

export function readGolden(path: string): GoldenFile {
  if (!existsSync(path))
    throw new UsageError(`${path}: no such golden file`, { hint: 'write <env>.golden.jsonl beside the env.py' });
  const { rows, problems } = parseGolden(readFileSync(path, 'utf8'));
  return { path, envFile: envFileFor(path), rows, problems };
}
