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

/** A network policy: Harbor's mode and, for an allowlist, its hosts. */
export interface NetworkPolicy {
  mode: HarborNetworkMode;
  hosts: readonly string[];
}

/** An environment's policy (`[environment]`, `[verifier.environment]`). */
export function baselinePolicy(config: {
  network_mode: HarborNetworkMode;
  allowed_hosts: readonly string[];
}): NetworkPolicy {
  return { mode: config.network_mode, hosts: config.allowed_hosts };
}

/** A phase's own policy when its table sets a mode (`[agent]`, `[verifier]`): that mode with its own hosts. */
export function phasePolicy(
  mode: HarborNetworkMode | undefined,
  hosts: readonly string[] | undefined,
): NetworkPolicy | undefined {
  return mode ? { mode, hosts: hosts ?? [] } : undefined;
}

/** Hosts a run adds to a task's policies (Harbor's `--allow-environment-host`, `--allow-agent-host`). */
export interface ExtraHosts {
  environment: readonly string[];
  agent: readonly string[];
}

/**
 * Harbor's run-time merge: a public policy stays public (the hosts are ignored, and `say` is told); any
 * other becomes an allowlist of its hosts and the extra ones, so `no-network` plus a host is that host alone.
 */
export function withExtraHosts(
  policy: NetworkPolicy,
  extra: readonly string[],
  flag: string,
  say: (line: string) => void,
): NetworkPolicy {
  if (extra.length === 0) return policy;
  if (policy.mode === 'public') {
    say(`${flag} ${extra.join(', ')} ignored: the network policy is public, so every host is reachable already`);
    return policy;
  }
  return { mode: 'allowlist', hosts: [...new Set([...policy.hosts, ...extra])] };
}

/** Whether two policies give a container the same network (an allowlist without hosts is no network). */
export function samePolicy(a: NetworkPolicy, b: NetworkPolicy): boolean {
  const x = planNetwork(a.mode, a.hosts);
  const y = planNetwork(b.mode, b.hosts);
  return x.docker === y.docker && [...x.allowedHosts].sort().join() === [...y.allowedHosts].sort().join();
}

/** `public`, `no-network`, or `allowlist (a.org, *.b.org)`, for the log. */
export function describePolicy(p: NetworkPolicy): string {
  const plan = planNetwork(p.mode, p.hosts);
  return plan.docker === 'allowlist'
    ? `allowlist (${plan.allowedHosts.join(', ')})`
    : plan.docker === 'bridge'
      ? 'public'
      : 'no-network';
}
