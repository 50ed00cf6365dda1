/**
 * Harbor's network modes, mapped onto what Docker can enforce. An allowlist with hosts gives the task's
 * container (a Compose task's `main`) an internal network whose only way out is HUD Studio's proxy
 * (docker/egressProxy.ts); an allowlist without hosts is no network at all, as in Harbor.
 */
import type { HarborNetworkMode } from '../../../../common/harbor';

export interface NetworkPlan {
  /** Single container: Docker's network, or the allowlist's internal network and proxy. */
  docker: 'bridge' | 'none' | 'allowlist';
  /** The hosts the proxy lets through (`docker: 'allowlist'` only). */
  allowedHosts: readonly string[];
  /** Compose project: an `internal` default network keeps sidecars reachable and nothing else. */
  compose: 'default' | 'internal';
}

export function planNetwork(mode: HarborNetworkMode, allowedHosts: readonly string[]): NetworkPlan {
  if (mode === 'public') return { docker: 'bridge', allowedHosts: [], compose: 'default' };
  if (mode === 'no-network' || allowedHosts.length === 0)
    return { docker: 'none', allowedHosts: [], compose: 'internal' };
  return { docker: 'allowlist', allowedHosts, compose: 'internal' };
}
