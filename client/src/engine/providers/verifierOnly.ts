/**
 * Golden data stays out of the actor's substrate (docs/security.md): a
 * folder of this name beside env.py is copied into verifier substrates only.
 * A verifier that reads its expected values from there (or from its
 * secrets) gives an agent nothing to find in the actor's copy.
 */
import type { PhaseName } from '../../../../common/trace/schema';

export const VERIFIER_ONLY_DIR = 'verifier-only';

/** Whether `rel` (relative to the environment's folder, `/`-separated) stays out of a substrate of `phase`. */
export function withheldFrom(phase: PhaseName, rel: string): boolean {
  return phase === 'actor' && (rel === VERIFIER_ONLY_DIR || rel.startsWith(`${VERIFIER_ONLY_DIR}/`));
}
