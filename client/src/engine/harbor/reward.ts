/**
 * Turns a Harbor verifier's reward file into our grade, parsing exactly as
 * Harbor does (docs/harbor.md, "Rewards"): `reward.json` wins over
 * `reward.txt`; an empty file is an error; `reward.txt` is one float in
 * Python's syntax (`nan`, `inf`, `1_000`, surrounding whitespace; no hex);
 * `reward.json` is an object whose values are numbers, booleans or numeric
 * strings (`NaN` and `Infinity` allowed), and may be empty.
 *
 * Each metric becomes a subscore; the reward is the `reward` key when the
 * verifier wrote one, else the mean of the metrics (0 for an empty object, as
 * Harbor's metrics count it). A non-finite reward is kept in `rewards` and
 * counted as 0, with a note.
 */
import { HarborTrialError } from './errors';
import type { GradeResult, SubScoreT } from '../../../../common/trace/schema';

export type RewardFile = { name: 'reward.json' | 'reward.txt'; text: string };

export interface HarborReward {
  reward: number;
  /** Every metric, as Harbor's result.json records them (non-finite values included). */
  rewards: Record<string, number>;
  subscores: SubScoreT[];
  source: RewardFile['name'];
  /** Why the scalar reward differs from what the file said, if it does. */
  note: string | undefined;
}

export type RewardErrorType = 'RewardFileNotFoundError' | 'RewardFileEmptyError' | 'VerifierOutputParseError';

export class HarborRewardError extends HarborTrialError {
  constructor(message: string, hint: string, type: RewardErrorType = 'VerifierOutputParseError') {
    super(type, 'harbor-verifier', message, { hint });
  }
}

export function parseRewardFile(file: RewardFile): HarborReward {
  if (file.text.length === 0) {
    throw new HarborRewardError(
      `/logs/verifier/${file.name} is empty`,
      'write the reward into the file, e.g. `echo 1 > /logs/verifier/reward.txt`',
      'RewardFileEmptyError',
    );
  }
  return file.name === 'reward.json' ? parseRewardJson(file.text) : parseRewardTxt(file.text);
}

/** Python's float(): optional sign, digits with single underscores between them, nan/inf/infinity. */
export function pythonFloat(text: string): number | undefined {
  const t = text.trim();
  const special = /^([+-]?)(nan|inf|infinity)$/i.exec(t);
  if (special) return special[2]!.toLowerCase() === 'nan' ? Number.NaN : special[1] === '-' ? -Infinity : Infinity;
  const digits = '\\d(?:_?\\d)*';
  const re = new RegExp(`^[+-]?(?:${digits}(?:\\.(?:${digits})?)?|\\.${digits})(?:[eE][+-]?${digits})?$`);
  if (!re.test(t)) return undefined;
  return Number(t.replace(/_/g, ''));
}

export function parseRewardTxt(text: string): HarborReward {
  const value = pythonFloat(text);
  if (value === undefined) {
    throw new HarborRewardError(
      `/logs/verifier/reward.txt holds ${JSON.stringify(text.trim().slice(0, 80))}, not a number`,
      'make tests/test.sh write a single number, e.g. `echo 1 > /logs/verifier/reward.txt`',
    );
  }
  return finish({ reward: value }, 'reward.txt');
}

const NON_FINITE: Record<string, number> = { NaN: Number.NaN, Infinity: Infinity, '-Infinity': -Infinity };
const SENTINEL = '\u0000hud-studio-non-finite:';

/** JSON plus the NaN / Infinity / -Infinity literals Python's json module accepts. */
function parsePythonJson(text: string): unknown {
  const marked = text.replace(/"(?:[^"\\]|\\.)*"|-?Infinity|NaN/g, (m) =>
    m.startsWith('"') ? m : JSON.stringify(SENTINEL + m),
  );
  return JSON.parse(marked, (_key, value: unknown) =>
    typeof value === 'string' && value.startsWith(SENTINEL) ? NON_FINITE[value.slice(SENTINEL.length)] : value,
  );
}

export function parseRewardJson(text: string): HarborReward {
  let doc: unknown;
  try {
    doc = parsePythonJson(text);
  } catch (err) {
    throw new HarborRewardError(
      `/logs/verifier/reward.json is not valid JSON: ${(err as Error).message}`,
      'write a flat JSON object of numbers, e.g. {"correct": 1, "style": 0.5}',
    );
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new HarborRewardError(
      '/logs/verifier/reward.json must be a JSON object of named numbers',
      'write e.g. {"correct": 1, "style": 0.5}',
    );
  }
  const rewards: Record<string, number> = {};
  for (const [name, value] of Object.entries(doc)) {
    const n =
      typeof value === 'number'
        ? value
        : typeof value === 'boolean'
          ? Number(value)
          : typeof value === 'string'
            ? pythonFloat(value)
            : undefined;
    if (n === undefined) {
      throw new HarborRewardError(
        `/logs/verifier/reward.json key "${name}" is ${JSON.stringify(value)}, not a number`,
        'every value in reward.json must be a number (nest nothing; put other details in the test output)',
      );
    }
    rewards[name] = n;
  }
  return finish(rewards, 'reward.json');
}

function finish(rewards: Record<string, number>, source: RewardFile['name']): HarborReward {
  const names = Object.keys(rewards);
  const explicit = rewards.reward;
  const metrics = names.filter((n) => n !== 'reward');
  let reward: number;
  let subscores: SubScoreT[];
  if (explicit !== undefined) {
    reward = explicit;
    subscores = metrics.map((name) => ({ name, value: finite(rewards[name]!), weight: 0 }));
  } else if (metrics.length === 0) {
    reward = 0;
    subscores = [];
  } else {
    reward = metrics.reduce((sum, n) => sum + rewards[n]!, 0) / metrics.length;
    subscores = metrics.map((name) => ({ name, value: finite(rewards[name]!), weight: 1 / metrics.length }));
  }
  let note: string | undefined;
  if (!Number.isFinite(reward)) {
    note = `${source} gave a reward of ${String(reward)}; Harbor records it as is (null in result.json), HUD Studio counts it as 0`;
    reward = 0;
  } else if (names.length === 0) {
    note = "reward.json is an empty object; as in Harbor's metrics, it counts as 0";
  }
  return { reward, rewards, subscores, source, note };
}

function finite(n: number): number {
  return Number.isFinite(n) ? n : 0;
}

export function toGradeResult(r: HarborReward): GradeResult {
  const shown = Object.fromEntries(Object.entries(r.rewards).map(([k, v]) => [k, Number.isFinite(v) ? v : String(v)]));
  return { reward: r.reward, subscores: r.subscores, info: { rewards: shown, source: r.source }, isError: false };
}
