/**
 * `hud-studio sanity PATH...`: tries to game every task's grader with
 * answers that deserve nothing, and checks its golden answers
 * (docs/grader-workbench.md). Exit 0 when every grader held, 1 otherwise.
 */
import { existsSync } from 'node:fs';
import { UsageError } from '../engine/errors';
import { goldenPathFor } from '../../../common/golden/rows';
import { readGolden } from '../engine/golden/file';
import { loadTasks } from '../engine/job';
import { selectRuntime } from '../engine/runTask';
import { sanityOfTask, type TaskSanity } from '../engine/sanity/run';
import { taskFileTarget } from '../engine/taskLoader';
import { abortOnInterrupt } from './interrupt';
import { EXIT, type CliIO } from './io';
import { parse } from './options';

export const SANITY_USAGE = `usage: hud-studio sanity PATH[::REF]... [options]

  Sends every task answers that deserve nothing (no answer, empty, the prompt
  echoed, a very long string, a fake result frame, Literal values, strings of
  the grader's source) and its golden answers; lists the graders that paid.

options:
  --runtime R     auto | docker | local | tcp://HOST:PORT (default auto)
  --image IMG     image for Docker substrates
  --json          print one JSON array instead of the table
`;

const OPTIONS = {
  runtime: { type: 'string', default: 'auto' },
  image: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export async function sanityCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(argv, OPTIONS);
  if (values.help) {
    io.stdout.write(SANITY_USAGE);
    return EXIT.ok;
  }
  if (!positionals.length) throw new UsageError('sanity needs at least one PATH', { hint: 'hud-studio sanity env.py' });
  const selected = await selectRuntime({
    runtime: values.runtime,
    consent: { serviceAccess: false, sharedSecrets: false },
  });
  if (selected.notice && !values.json) io.stderr.write(`${selected.notice}\n`);
  const interrupt = abortOnInterrupt(() => void io.stderr.write('cancelling the sanity check\n'));
  const results: TaskSanity[] = [];
  try {
    for (const path of positionals) {
      const target = taskFileTarget(path, io.cwd);
      const goldenPath = goldenPathFor(target.envFile);
      const golden = existsSync(goldenPath) ? readGolden(goldenPath) : undefined;
      for (const task of await loadTasks(path, io.cwd, selected.provider, interrupt.signal)) {
        const r = await sanityOfTask(task, {
          cwd: io.cwd,
          runtime: values.runtime,
          context: { selected, signal: interrupt.signal },
          ...(golden ? { golden } : {}),
          ...(values.image ? { image: values.image } : {}),
        });
        results.push(r);
        if (!values.json) io.stdout.write(renderTask(r));
      }
    }
  } finally {
    interrupt.dispose();
  }
  if (values.json) io.stdout.write(`${JSON.stringify(results.map(sanityJson), null, 2)}\n`);
  else {
    const gameable = results.filter((r) => !r.sound).length;
    io.stderr.write(
      `${results.length} task(s): ${results.length - gameable} sound, ${gameable} gameable or failing golden rows\n`,
    );
  }
  if (interrupt.signal.aborted) return EXIT.cancelled;
  return results.every((r) => r.sound) ? EXIT.ok : EXIT.error;
}

function clip(s: string, n = 60): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > n ? `${one.slice(0, n)}…` : one;
}

function renderTask(r: TaskSanity): string {
  const head = `${r.task.ref}  ${r.sound ? 'sound' : 'GAMEABLE'}`;
  const lines = [head];
  for (const p of r.gamedBy)
    lines.push(`  gamed by ${p.probe}: reward ${p.reward?.toFixed(2)} for "${clip(p.answer)}"`);
  for (const p of r.probes.filter((x) => x.error))
    lines.push(`  ${p.probe} could not run: ${clip(p.error ?? '', 100)}`);
  for (const g of r.golden.filter((x) => !x.passed)) {
    lines.push(
      `  golden row line ${g.row.line}: reward ${g.reward === null ? 'none' : g.reward.toFixed(2)}, expected ${g.expected}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

export interface SanityJson {
  ref: string;
  line: number | null;
  sound: boolean;
  gamedBy: { probe: string; answer: string; reward: number | null }[];
  probes: { probe: string; answer: string; reward: number | null; error: string | null }[];
  golden: { line: number; passed: boolean; reward: number | null; expected: string }[];
}

export function sanityJson(r: TaskSanity): SanityJson {
  return {
    ref: r.task.ref,
    line: r.task.line ?? null,
    sound: r.sound,
    gamedBy: r.gamedBy.map((p) => ({ probe: p.probe, answer: clip(p.answer, 200), reward: p.reward })),
    probes: r.probes.map((p) => ({
      probe: p.probe,
      answer: clip(p.answer, 200),
      reward: p.reward,
      error: p.error ?? null,
    })),
    golden: r.golden.map((g) => ({ line: g.row.line, passed: g.passed, reward: g.reward, expected: g.expected })),
  };
}
