/**
 * The network of a running container, changed between a trial's phases: Harbor gives a shared verifier its
 * own policy while it verifies in the agent's container (docs/harbor.md, "Allowlists"). Docker moves a running
 * container between networks (disconnect, connect), so the engine leaves every network the container is on
 * and joins the one the new policy needs: none, the rollout network, or an allowlist's network with its proxy.
 *
 * A container's variables are fixed at its creation, so the proxy's variables go to the commands that run
 * under the policy (`set` returns them), and blank ones when the container was made with a proxy it no
 * longer has.
 */
import { dockerClient } from './client';
import { type EgressOptions, type EgressRoute, openEgress, proxyVariables } from './egressProxy';
import { ContainerError, dockerMessage } from './errors';
import { rolloutNetwork } from './rolloutNetwork';

export type NetworkKind = 'bridge' | 'none' | 'allowlist';

export class ContainerNetwork {
  /** A phase's own allowlist, while the container is on it. */
  private phase: EgressRoute | undefined;

  /** `made`: the network the container was created on, and its allowlist's route (kept until `close`). */
  constructor(
    private readonly containerId: string,
    private readonly made: { kind: NetworkKind; egress: EgressRoute | undefined },
    private readonly egressOptions: Omit<EgressOptions, 'allowedHosts'>,
  ) {}

  /** Moves the container to `kind`'s network for a phase; returns the variables its commands need there. */
  async set(kind: NetworkKind, allowedHosts: readonly string[]): Promise<Record<string, string>> {
    await this.moving(kind, async () => {
      await this.leave();
      if (kind === 'allowlist') {
        this.phase = await openEgress({ ...this.egressOptions, allowedHosts });
        await this.join(this.phase.network);
      } else if (kind === 'bridge') await this.join(await rolloutNetwork(dockerClient()));
    });
    if (this.phase) return this.phase.env;
    return this.made.egress ? blankProxyVariables() : {};
  }

  /** Back to the network the container was made on (its variables fit that one). */
  async restore(): Promise<void> {
    await this.moving(this.made.kind, async () => {
      await this.leave();
      if (this.made.egress) await this.join(this.made.egress.network);
      else if (this.made.kind === 'bridge') await this.join(await rolloutNetwork(dockerClient()));
    });
  }

  /** Removes the allowlists' proxies and networks, once the container has gone. Idempotent. */
  async close(): Promise<void> {
    const routes = [this.phase, this.made.egress];
    this.phase = undefined;
    this.made.egress = undefined;
    for (const route of routes) await route?.close();
  }

  private async leave(): Promise<void> {
    const docker = dockerClient();
    const on = Object.keys((await docker.getContainer(this.containerId).inspect()).NetworkSettings.Networks ?? {});
    for (const name of on) await docker.getNetwork(name).disconnect({ Container: this.containerId, Force: true });
    const phase = this.phase;
    this.phase = undefined;
    await phase?.close();
  }

  private async join(network: string): Promise<void> {
    await dockerClient().getNetwork(network).connect({ Container: this.containerId });
  }

  private async moving(kind: NetworkKind, move: () => Promise<void>): Promise<void> {
    try {
      await move();
    } catch (err) {
      if (err instanceof ContainerError) throw err;
      throw new ContainerError(
        `could not move container ${this.containerId.slice(0, 12)} to its ${kind} network: ${dockerMessage(err)}`,
        { cause: err },
      );
    }
  }
}

/** The proxy variables, empty: clients read an empty one as none. */
function blankProxyVariables(): Record<string, string> {
  return Object.fromEntries(Object.keys(proxyVariables('')).map((name) => [name, '']));
}
