/**
 * What the last discovery of a task said about its verifier, so that the next
 * rollout of the same task in this process can start the verifier's own
 * substrate at once instead of after the actor's container and discovery
 * (docs/engine.md). A hint only moves work
 * earlier: every rollout still discovers, and a substrate started from a hint
 * that no longer fits the discovered verifier is released unused.
 */
import { isDeepStrictEqual } from 'node:util';
import type { RuntimeConfig } from './runtimeConfig';
import type { TaskFileTarget } from './taskLoader';

export interface VerifierHint {
  env: string;
  runtimeConfig: RuntimeConfig | null;
}

/** Enough for every task of a large workspace; the oldest is forgotten first. */
const MAX_HINTS = 512;
const hints = new Map<string, VerifierHint>();

/** One task of one environment file on one kind of provider. */
export function verifierHintKey(providerKind: string, target: TaskFileTarget): string {
  return `${providerKind}\0${target.envFile}\0${target.file}\0${target.selector ?? ''}`;
}

export function verifierHint(key: string): VerifierHint | undefined {
  return hints.get(key);
}

/** Records what discovery found: the verifier that needs a substrate of its own, or none. */
export function rememberVerifierHint(key: string, hint: VerifierHint | undefined): void {
  hints.delete(key);
  if (!hint) return;
  hints.set(key, { env: hint.env, runtimeConfig: hint.runtimeConfig });
  if (hints.size > MAX_HINTS) hints.delete(hints.keys().next().value as string);
}

export function hintFits(hint: VerifierHint, verifier: VerifierHint | undefined): boolean {
  return !!verifier && verifier.env === hint.env && isDeepStrictEqual(verifier.runtimeConfig, hint.runtimeConfig);
}

/** Forgets every hint: a benchmark's way to measure the first run of a task in a process. */
export function forgetVerifierHints(): void {
  hints.clear();
}
