/**
 * What discovery last said about a task's verifier, per task, in this
 * process. A rollout without a planned task only learns whether its verifier
 * needs a container of its own once discovery has run in the actor's; on the
 * next run of the same task, the verifier's container is asked for at once,
 * on the strength of the last answer, and kept only if this run's discovery
 * says the same (docs/engine.md, "The verifier's container").
 */
import { isDeepStrictEqual } from 'node:util';
import type { DiscoveredVerifier } from './discover';

/** A guess decides only what the early container is made and served with: the environment and its runtime_config. */
export type VerifierGuess = Pick<DiscoveredVerifier, 'env' | 'runtimeConfig'>;

const MAX_REMEMBERED = 256;
const last = new Map<string, VerifierGuess>();

/** The verifier that needed its own container the last time this task ran here, if it did. */
export function recallVerifier(taskKey: string): VerifierGuess | undefined {
  return last.get(taskKey);
}

/** Records this run's answer: the verifier on a container of its own, or none (no verifier, or a shared one). */
export function rememberVerifier(taskKey: string, own: VerifierGuess | undefined): void {
  last.delete(taskKey);
  if (!own) return;
  if (last.size >= MAX_REMEMBERED) last.delete(last.keys().next().value as string);
  last.set(taskKey, { env: own.env, runtimeConfig: own.runtimeConfig });
}

/** Whether a container made and served for `guess` is the one `actual` would get. */
export function guessedRight(guess: VerifierGuess, actual: VerifierGuess): boolean {
  return guess.env === actual.env && isDeepStrictEqual(guess.runtimeConfig, actual.runtimeConfig);
}
