/**
 * Activation cost of the extension as shipped (production bundles): each
 * sample is a fresh Node process that requires dist/extension.js with a
 * stand-in `vscode` module and awaits activate() (bench/activation/probe.cjs).
 * The baseline, measured in the same run and interleaved with it, is the
 * least an extension does (baseline.cjs: one output channel, one command).
 * Also timed: requiring dist/engine.js, which the first run pays instead.
 *
 *   npm run bench -- activation [--samples N]     prints one JSON document
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { machineInfo } from '../support/machine';

const ROOT = join(__dirname, '..', '..');
const PROBE = join(__dirname, 'probe.cjs');
const TARGET_ACTIVATE_MS = 30;

interface Sample {
  requireMs: number;
  activateMs: number;
}

function probe(module: string, requireOnly = false): Sample {
  const r = spawnSync(process.execPath, [PROBE, module, ...(requireOnly ? ['--require-only'] : [])], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`probe of ${module} failed (${r.status}):\n${r.stderr}`);
  return JSON.parse(r.stdout) as Sample;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const round = (x: number): number => Math.round(x * 100) / 100;

function main(): void {
  const argv = process.argv.slice(2);
  const samples = argv.includes('--samples') ? Number(argv[argv.indexOf('--samples') + 1]) : 9;
  const build = spawnSync(process.execPath, ['scripts/build.mjs', '--production'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('the production build failed');

  const extension = join(ROOT, 'dist', 'extension.js');
  const engine = join(ROOT, 'dist', 'engine.js');
  const baseline = join(__dirname, 'baseline.cjs');
  // One warm-up each (disk cache), then interleaved so that load on the machine hits both alike.
  probe(extension);
  probe(baseline);
  const ext: Sample[] = [];
  const base: Sample[] = [];
  const eng: Sample[] = [];
  for (let i = 0; i < samples; i++) {
    ext.push(probe(extension));
    base.push(probe(baseline));
    eng.push(probe(engine, true));
  }
  const activateMs = median(ext.map((s) => s.activateMs));
  const requireMs = median(ext.map((s) => s.requireMs));
  const baselineMs = median(base.map((s) => s.requireMs + s.activateMs));
  const result = {
    benchmark: 'activation',
    machine: machineInfo(),
    samples,
    extension: { activateMs: round(activateMs), requireMs: round(requireMs), totalMs: round(requireMs + activateMs) },
    baseline: { totalMs: round(baselineMs) },
    engineRequireMs: round(median(eng.map((s) => s.requireMs))),
    ratio: {
      activateToBaseline: round(activateMs / baselineMs),
      totalToBaseline: round((requireMs + activateMs) / baselineMs),
    },
    target: { activateMs: TARGET_ACTIVATE_MS, met: activateMs < TARGET_ACTIVATE_MS },
    all: { activateMs: ext.map((s) => round(s.activateMs)), requireMs: ext.map((s) => round(s.requireMs)) },
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

main();
