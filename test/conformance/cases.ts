/**
 * The env files of the conformance suite and the runs made of each: task
 * rows (as in a .jsonl task file) and answers. Env files come from the
 * peer's cookbooks and docs (read in place, never copied into this
 * repository), from this repository's example, and from envs/ here.
 * Left out, and why: README.md, "SDK compatibility".
 *
 * The cases of envs/ probe corners of the SDK's semantics (what a template
 * yields, argument conversion, graders, verifiers). Corners not run here:
 * - a NaN or infinite score: the SDK completes the run with that reward,
 *   HUD Studio fails it on purpose (docs/hud-protocol.md, "The two yields");
 *   the SDK's server writes `NaN` into a frame, which no JSON reader takes;
 * - pydantic models and TypedDicts as annotations: the bundled runtime's
 *   own python has no pydantic (way (d) could not run them; on Python 3.11
 *   the SDK refuses `typing.TypedDict` itself);
 * - timeouts other than the whole rollout's (`rolloutTimeoutS`): the SDK's
 *   local runtime enforces no per-call limit to compare the engine's with;
 * - env files that fail to import: compared, but HUD Studio refuses the
 *   whole file when it loads it (`refusedAtLoad`), so such a case holds one
 *   row.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { peerRoot, REPO_ROOT } from './peer';

export interface Row {
  env: string;
  id: string;
  args?: Record<string, unknown>;
  slug?: string;
  verifier?: Row;
  /**
   * A task the env file makes itself, by its reference inside the module
   * (`name`, or `name[i]` for an element of a list or Taskset): the run uses
   * that Task; `env` and `id` say which environment and template it is.
   */
  task?: string;
}

export interface Case {
  name: string;
  /** The env file's text. */
  source: () => string;
  /** More files beside it (relative path -> text), e.g. a verifier's `verifier-only/` data. */
  files?: () => Record<string, string>;
  rows: Row[];
  answers: string[];
  /**
   * Set when HUD Studio refuses the env file as it loads it (an import that
   * fails; docs/hud-protocol.md): the engine's setup error must say this. The
   * SDK fails the same run when it starts its server; status, reward and
   * prompt agree (the slug is not compared: the engine has none for a row it
   * did not load).
   */
  refusedAtLoad?: RegExp;
  /**
   * Rows (by index) that cannot run: no such template, or arguments that do
   * not fit it. The SDK fails each one's run at tasks.start; the engine fails
   * it in the actor phase with an error matching the pattern (file, line,
   * row, why), and runs the file's other rows.
   */
  failedRows?: Record<number, RegExp>;
  /**
   * Set when the env file does not import: then no server starts, the SDK's
   * nor the bundled one, and ways (b) and (c) check that each refuses with a
   * message matching this.
   */
  importFails?: RegExp;
  /** The whole rollout's time limit, in seconds, given to the SDK (`rollout_timeout`) and to the engine alike. */
  rolloutTimeoutS?: number;
}

function peerFile(rel: string): () => string {
  return () => readFileSync(join(peerRoot(), 'src', rel), 'utf8');
}

/** The `index`-th ```python block of a docs page. */
function peerDocBlock(rel: string, index: number): () => string {
  return () => {
    const blocks = [...readFileSync(join(peerRoot(), 'src', rel), 'utf8').matchAll(/```python[^\n]*\n([\s\S]*?)```/g)];
    const block = blocks[index]?.[1];
    if (block === undefined) throw new Error(`${rel} has no python block ${index}`);
    return block;
  };
}

function ours(rel: string): () => string {
  return () => readFileSync(join(REPO_ROOT, rel), 'utf8');
}

/** One argument-less row per template of `env` in an env file of ours, in file order. */
function templatesOf(rel: string, env: string): Row[] {
  const ids = [...ours(rel)().matchAll(/@\w+\.template\([^)]*\)\s*\nasync def (\w+)/g)].map((m) => m[1]!);
  return ids.map((id) => ({ env, id }));
}

const letters = (env: string): Row[] => [
  { env, id: 'count_letter', args: { word: 'strawberry' } },
  { env, id: 'count_letter' },
  { env, id: 'count_letter', args: { word: 'banana', letter: 'a' } },
];

export const CASES: Case[] = [
  {
    name: 'docs: start/quickstart',
    source: peerDocBlock('docs/v6/start/quickstart.mdx', 0),
    rows: letters('letter-count'),
    answers: ['3', '2'],
  },
  {
    name: 'docs: skill.md',
    source: peerDocBlock('docs/skill.md', 0),
    rows: letters('letter-count').slice(0, 2),
    answers: ['3', 'none'],
  },
  {
    name: 'docs: reference/tasks',
    source: peerDocBlock('docs/v6/reference/tasks.mdx', 0),
    rows: letters('letter-count'),
    answers: ['3'],
  },
  {
    name: 'docs: experimental/verifier-environments',
    source: peerDocBlock('docs/v6/experimental/verifier-environments.mdx', 0),
    rows: [{ env: 'workspace', id: 'solve', verifier: { env: 'judge', id: 'verify', args: { expected: 'secret' } } }],
    answers: ['secret', 'nope'],
  },
  {
    name: 'cookbook: fireworks-rl-training',
    source: peerFile('cookbooks/fireworks-rl-training/env.py'),
    // String arguments, as a task file may hold them: the SDK converts them to the annotated int.
    rows: [{ env: 'fireworks-arithmetic', id: 'multiply', args: { a: '12', b: 3 } }],
    answers: ['12 * 3 = 36', '35'],
  },
  {
    name: 'docs: cookbooks/fireworks-rl-training',
    source: peerDocBlock('docs/v6/cookbooks/fireworks-rl-training.mdx', 0),
    rows: [{ env: 'fireworks-arithmetic', id: 'multiply', args: { a: 7, b: '6' } }],
    answers: ['42'],
  },
  {
    name: 'cookbook: rl-training',
    source: peerFile('cookbooks/rl-training/env.py'),
    rows: [{ env: 'arithmetic', id: 'multiply', args: { a: '101', b: '11' } }],
    answers: ['1111', 'about 1000'],
  },
  {
    name: 'example: secret-verifier',
    source: ours('examples/secret-verifier/env.py'),
    files: () => ({ 'verifier-only/expected.txt': ours('examples/secret-verifier/verifier-only/expected.txt')() }),
    rows: [{ env: 'workspace', id: 'solve', verifier: { env: 'judge', id: 'verify', args: {} } }],
    answers: ['marigold', 'the marigold', 'wrong'],
  },
  {
    name: 'graders',
    source: ours('test/conformance/envs/graders/env.py'),
    rows: [
      { env: 'graders', id: 'weighted', args: { expected: 'yes' } },
      { env: 'graders', id: 'weighted', args: { expected: 'yes', strict: 'true' } },
      { env: 'graders', id: 'shell', args: { code: '0' } },
      { env: 'graders', id: 'boolean', args: { level: '2', scale: '0.25' } },
      { env: 'graders', id: 'bare_result', args: { points: 7 } },
      { env: 'graders', id: 'plain_dict', slug: 'my-own-slug' },
      { env: 'graders', id: 'broken_actor', verifier: { env: 'graders-judge', id: 'check', args: { expected: '2' } } },
    ],
    answers: ['yes', '2'],
  },
  {
    name: 'yields',
    source: ours('test/conformance/envs/yields/env.py'),
    rows: [
      ...templatesOf('test/conformance/envs/yields/env.py', 'yields'),
      { env: 'yields', id: 'returns_early', args: { cutoff: 10 } },
    ],
    answers: ['yes'],
  },
  {
    name: 'arguments',
    source: ours('test/conformance/envs/arguments/env.py'),
    rows: [
      { env: 'arguments', id: 'scalars', args: { count: '12', ratio: '0.5', flag: 'yes', word: 'w' } },
      { env: 'arguments', id: 'scalars', args: { count: 3.0, ratio: 2, flag: 1, word: 5 } },
      { env: 'arguments', id: 'scalars', args: { count: '5.', ratio: 'inf', flag: 'maybe', word: 'x', data: 'bytes' } },
      { env: 'arguments', id: 'scalars', args: { count: 3.5, ratio: 'x', flag: 2, word: ['w'] } },
      { env: 'arguments', id: 'containers', args: { items: '[1, "2"]', table: '{"a": "1.5"}', pair: ['1', 'b'] } },
      {
        env: 'arguments',
        id: 'containers',
        args: { items: ['1', 2.0], table: { a: 1 }, pair: [1, 2], tags: ['b', 'a'] },
      },
      { env: 'arguments', id: 'choices', args: { level: '2', on: 1, color: 'red', maybe: '4', either: '5' } },
      { env: 'arguments', id: 'choices', args: { level: true, on: '1', color: 'RED', maybe: null, either: 5.0 } },
      { env: 'arguments', id: 'choices', args: { level: 4, on: 'true', color: 'green', maybe: 'none', either: 'x' } },
      {
        env: 'arguments',
        id: 'records',
        args: {
          point: { x: '3' },
          span: [1, 'b'],
          where: '/tmp/x',
          amount: 0.1,
          ident: '12345678123456781234567812345678',
        },
      },
      {
        env: 'arguments',
        id: 'records',
        args: { point: '{"x": 1, "y": "2"}', span: { start: '2' }, where: 5, amount: '1_000', ident: 'nope' },
      },
      { env: 'arguments', id: 'records', args: { point: { y: 1 }, span: [], where: '', amount: 'NaN', ident: 7 } },
      { env: 'arguments', id: 'moments', args: { day: '2032-04-23', at: '2032-04-23T10:20:30+02:00', clock: '10:20' } },
      {
        env: 'arguments',
        id: 'moments',
        args: { day: 86400, at: 1700000000.5, clock: 3600, due: '2032-04-23T00:00Z' },
      },
      { env: 'arguments', id: 'moments', args: { day: '2032-02-30', at: '20000000001', clock: '3600', due: 'soon' } },
      {
        env: 'arguments',
        id: 'moments',
        args: { day: '2032-04-23T10:00', at: '2032-04-23', clock: '25:00', due: null },
      },
      { env: 'arguments', id: 'keywords', args: { a: 1, c: 'x' } },
      { env: 'arguments', id: 'keywords', args: { a: '1', b: '3', c: 'x' } },
      { env: 'arguments', id: 'open_ended', args: { anything: '1', more: [1] } },
      { env: 'arguments', id: 'untyped', args: { x: '1' } },
      // Defaults are passed as written, never converted.
      { env: 'arguments', id: 'defaults' },
      { env: 'arguments', id: 'defaults', args: { n: '8', names: 'x' } },
    ],
    answers: ['ok'],
  },
  {
    name: 'scoring',
    source: ours('test/conformance/envs/scoring/env.py'),
    rows: [
      { env: 'scoring', id: 'text' },
      { env: 'scoring', id: 'text', args: { expected: '42' } },
    ],
    answers: ['The answer is 42.', '42', 'forty-two', ''],
  },
  {
    // Each of these needs only an answer with a number and one without.
    name: 'scoring: inputs, results and verifiers',
    source: ours('test/conformance/envs/scoring/env.py'),
    rows: [
      { env: 'scoring', id: 'number_as_text' },
      { env: 'scoring', id: 'needle_not_text' },
      { env: 'scoring', id: 'expected_not_text' },
      { env: 'scoring', id: 'combine_a_list' },
      { env: 'scoring', id: 'content_not_text' },
      { env: 'scoring', id: 'own_graders' },
      { env: 'scoring', id: 'own_graders', args: { limit: '50' } },
      { env: 'scoring', id: 'grader_out_of_range' },
      // A verifier in the same environment (it shares the actor's substrate) with arguments of its own.
      {
        env: 'scoring',
        id: 'hand_over',
        verifier: { env: 'scoring', id: 'same_env_check', args: { expected: '42', bonus: '0.25' } },
      },
      { env: 'scoring', id: 'hand_over', verifier: { env: 'scoring-referee', id: 'judge', args: { expected: '42' } } },
      { env: 'scoring', id: 'hand_over', verifier: { env: 'scoring-referee', id: 'judge_raises' } },
      { env: 'scoring', id: 'hand_over', verifier: { env: 'scoring-referee', id: 'judge_yields_once' } },
    ],
    answers: ['42', 'forty-two'],
  },
  {
    name: 'outcomes',
    source: ours('test/conformance/envs/outcomes/env.py'),
    rows: templatesOf('test/conformance/envs/outcomes/env.py', 'outcomes').filter((r) => !r.id.startsWith('typed_')),
    answers: ['plain words'],
  },
  {
    name: 'outcomes: typed answers',
    source: ours('test/conformance/envs/outcomes/env.py'),
    rows: templatesOf('test/conformance/envs/outcomes/env.py', 'outcomes').filter((r) => r.id.startsWith('typed_')),
    answers: ['42', '[1, "2"]', '{"value": "3", "sure": 1}', '"quoted"', 'plain words', '{"a": 1, "b": null}'],
  },
  {
    // Long enough for any substrate to start (Docker included), far shorter than the grading.
    name: 'deadlines',
    source: ours('test/conformance/envs/deadlines/env.py'),
    rows: [{ env: 'deadlines', id: 'slow_grade' }],
    answers: ['late'],
    rolloutTimeoutS: 6,
  },
  {
    name: 'module tasks',
    source: ours('test/conformance/envs/module_tasks/env.py'),
    rows: [
      { env: 'module', id: 'spell', task: 'by_keyword' },
      { env: 'module', id: 'spell', task: 'by_position' },
      { env: 'module', id: 'spell', task: 'default_spelled_out' },
      { env: 'module', id: 'open_ended', task: 'extra_keywords' },
      { env: 'module', id: 'spell', task: 'listed[0]' },
      { env: 'module', id: 'spell', task: 'listed[1]' },
      { env: 'module', id: 'spell', task: 'suite[0]' },
      { env: 'module', id: 'open_ended', task: 'suite[1]' },
      { env: 'module', id: 'spell', task: 'written_out' },
      { env: 'module', id: 'spell', task: 'own_slug' },
      { env: 'module', id: 'hand_in', task: 'judged_here', verifier: { env: 'module', id: 'same_env_judge' } },
      { env: 'module', id: 'hand_in', task: 'judged_elsewhere', verifier: { env: 'module-checker', id: 'judge' } },
    ],
    answers: ['echo'],
  },
  {
    name: 'annotations: postponed',
    source: ours('test/conformance/envs/annotations/env.py'),
    rows: [
      { env: 'postponed', id: 'typed', args: { count: '3', ratios: '[1, "2.5"]' } },
      { env: 'postponed', id: 'typed', args: { count: 4, ratios: [], table: '{"a": "1"}' } },
    ],
    answers: ['3'],
  },
  {
    name: 'annotations: a name only type checkers see',
    source: ours('test/conformance/envs/annotations_unresolved/env.py'),
    rows: [{ env: 'unresolved', id: 'priced' }],
    answers: ['1'],
    refusedAtLoad: /annotation of 'amount' \('Decimal'\) names nothing/,
    importFails: /NameError.*Decimal/,
  },
  // Rows that do not fit: each fails its own run, as under the SDK, and the good rows between them run.
  {
    name: 'arguments: rows that do not fit fail alone',
    source: ours('test/conformance/envs/arguments/env.py'),
    rows: [
      { env: 'arguments', id: 'keywords', args: { a: 1 } },
      { env: 'arguments', id: 'untyped', args: { x: 1 } },
      { env: 'arguments', id: 'keywords', args: { a: 1, c: 'x', d: 0 } },
      { env: 'arguments', id: 'positional', args: { a: 1 } },
      { env: 'arguments', id: 'untyped', args: { y: 1 } },
      { env: 'arguments', id: 'nowhere', args: {} },
      { env: 'arguments', id: 'keywords', args: { a: 1, c: 'x' } },
    ],
    answers: ['ok'],
    failedRows: {
      0: /tasks\.jsonl:1: row 0: .*missing a required argument: 'c'/,
      2: /tasks\.jsonl:3: row 2: .*unexpected argument\(s\) 'd'/,
      3: /tasks\.jsonl:4: row 3: .*positional only/,
      4: /tasks\.jsonl:5: row 4: .*missing a required argument: 'x'/,
      5: /tasks\.jsonl:6: row 5: .*has no template 'nowhere'/,
    },
  },
];

/** Every environment name a case's rows use (actor and verifier). */
export function envNames(c: Case): string[] {
  return [...new Set(c.rows.flatMap((r) => [r.env, ...(r.verifier ? [r.verifier.env] : [])]))];
}
