/**
 * Harbor's network modes, mapped onto what Docker can enforce. An allowlist with hosts gives a single
 * container an internal network whose only way out is HUD Studio's proxy (docker/egressProxy.ts). A Compose
 * project gets no proxy: its allowlist fails closed (no network beyond its own services) and says so,
 * rather than quietly running with full access.
 */
import type { HarborNetworkMode } from '../../../../common/harbor';

export interface NetworkPlan {
  /** Single container: Docker's network, or the allowlist's internal network and proxy. */
  docker: 'bridge' | 'none' | 'allowlist';
  /** The hosts the proxy lets through (`docker: 'allowlist'` only). */
  allowedHosts: readonly string[];
  /** Compose project: an `internal` default network keeps sidecars reachable and nothing else. */
  compose: 'default' | 'internal';
  /** Shown in the CLI, the editor and the trace when a Compose project's allowlist cannot be kept. */
  composeWarning: string | undefined;
}

export function planNetwork(mode: HarborNetworkMode, allowedHosts: readonly string[], where: string): NetworkPlan {
  if (mode === 'public') return { docker: 'bridge', allowedHosts: [], compose: 'default', composeWarning: undefined };
  if (mode === 'no-network' || allowedHosts.length === 0)
    return { docker: 'none', allowedHosts: [], compose: 'internal', composeWarning: undefined };
  return {
    docker: 'allowlist',
    allowedHosts,
    compose: 'internal',
    composeWarning:
      `${where} network_mode = "allowlist" was NOT enforced as an allowlist: HUD Studio's allowlist proxy serves ` +
      `single-container tasks only, so this Compose task ran with no network beyond its own services (fail closed) ` +
      `and these allowed hosts were unreachable: ${allowedHosts.join(', ')}`,
  };
}
