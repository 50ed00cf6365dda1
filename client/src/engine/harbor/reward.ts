/**
 * Turns a Harbor verifier's reward file into our grade. `reward.json` (a
 * flat object of named numeric metrics) wins over `reward.txt` (one float).
 * Each metric becomes a subscore; the reward is the `reward` key when the
 * verifier wrote one, else the mean of the metrics (so the weights are 1/n
 * and the subscores add up to the reward; with an explicit `reward` key the
 * others are informational and carry weight 0).
 */
import { HudStudioError } from '../errors';
import type { GradeResult, SubScoreT } from '../trace/schema';

export type RewardFile = { name: 'reward.json' | 'reward.txt'; text: string };

export interface HarborReward {
  reward: number;
  /** Every metric, as Harbor's result.json records them. */
  rewards: Record<string, number>;
  subscores: SubScoreT[];
  source: RewardFile['name'];
}

export class HarborRewardError extends HudStudioError {
  constructor(message: string, hint: string) {
    super('harbor-verifier', message, { hint });
  }
}

export function parseRewardFile(file: RewardFile): HarborReward {
  return file.name === 'reward.json' ? parseRewardJson(file.text) : parseRewardTxt(file.text);
}

export function parseRewardTxt(text: string): HarborReward {
  const trimmed = text.trim();
  const value = trimmed === '' ? Number.NaN : Number(trimmed);
  if (!Number.isFinite(value)) {
    throw new HarborRewardError(`/logs/verifier/reward.txt holds ${JSON.stringify(trimmed.slice(0, 80))}, not a number`, 'make tests/test.sh write a single number, e.g. `echo 1 > /logs/verifier/reward.txt`');
  }
  return { reward: value, rewards: { reward: value }, subscores: [], source: 'reward.txt' };
}

export function parseRewardJson(text: string): HarborReward {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new HarborRewardError(`/logs/verifier/reward.json is not valid JSON: ${(err as Error).message}`, 'write a flat JSON object of numbers, e.g. {"correct": 1, "style": 0.5}');
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new HarborRewardError('/logs/verifier/reward.json must be a JSON object of named numbers', 'write e.g. {"correct": 1, "style": 0.5}');
  }
  const rewards: Record<string, number> = {};
  for (const [name, value] of Object.entries(doc)) {
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw new HarborRewardError(`/logs/verifier/reward.json key "${name}" is ${JSON.stringify(value)}, not a number`, 'every value in reward.json must be a number (nest nothing; put other details in the test output)');
    }
    rewards[name] = value;
  }
  const names = Object.keys(rewards);
  if (names.length === 0) {
    throw new HarborRewardError('/logs/verifier/reward.json has no metrics', 'write at least one named number, e.g. {"reward": 1}');
  }
  const explicit = rewards.reward;
  const metrics = names.filter((n) => n !== 'reward');
  if (explicit !== undefined) {
    return { reward: explicit, rewards, subscores: metrics.map((name) => ({ name, value: rewards[name]!, weight: 0 })), source: 'reward.json' };
  }
  const mean = metrics.reduce((sum, n) => sum + rewards[n]!, 0) / metrics.length;
  return { reward: mean, rewards, subscores: metrics.map((name) => ({ name, value: rewards[name]!, weight: 1 / metrics.length })), source: 'reward.json' };
}

export function toGradeResult(r: HarborReward): GradeResult {
  return { reward: r.reward, subscores: r.subscores, info: { rewards: r.rewards, source: r.source }, isError: false };
}
