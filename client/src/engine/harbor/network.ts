/**
 * Harbor's network modes, mapped onto what Docker can enforce. There is no
 * egress proxy, so an allowlist with hosts fails closed (no network at all)
 * and says so, rather than quietly running with full access.
 */
import type { HarborNetworkMode } from '../../../../common/harbor';

export interface NetworkPlan {
  /** Single container: Docker network mode. */
  docker: 'bridge' | 'none';
  /** Compose project: an `internal` default network keeps sidecars reachable and nothing else. */
  compose: 'default' | 'internal';
  /** Shown in the CLI, the editor and the trace. */
  warning: string | undefined;
}

export function planNetwork(mode: HarborNetworkMode, allowedHosts: readonly string[], where: string): NetworkPlan {
  if (mode === 'public') return { docker: 'bridge', compose: 'default', warning: undefined };
  if (mode === 'no-network' || allowedHosts.length === 0)
    return { docker: 'none', compose: 'internal', warning: undefined };
  return {
    docker: 'none',
    compose: 'internal',
    warning:
      `${where} network_mode = "allowlist" was NOT enforced as an allowlist: HUD Studio has no egress proxy, ` +
      `so it ran with no network at all (fail closed) and these allowed hosts were unreachable: ${allowedHosts.join(', ')}`,
  };
}
