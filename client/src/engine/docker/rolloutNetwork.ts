/**
 * The network every rollout container with network access joins
 * (docs/security.md, "Rollouts cannot reach each other"). On Docker's
 * default `bridge`, every container reaches every other one: the agent of
 * one rollout could talk to the services of another rollout running beside
 * it (its environment's, its grader's) and to the user's own containers
 * there. This bridge of HUD Studio's has inter-container traffic turned off,
 * so a container on it reaches the outside world and nothing else Docker
 * runs; compose projects keep their own networks, which Docker already
 * keeps apart.
 *
 * One network, made on first use and kept (like the base image): it holds
 * no state, so whichever engine makes it first makes it for all of them.
 * It is looked up for every container (one listing), so a
 * `docker network prune` between runs only means it is made again.
 */
import type Docker from 'dockerode';
import { HudStudioError } from '../errors';
import { ContainerError, dockerMessage, dockerStatus } from './errors';
import { LABELS } from './types';

export const ROLLOUT_NETWORK = 'hud-studio-rollouts';
const ICC_OPTION = 'com.docker.network.bridge.enable_icc';
/** A bridge without an address of the host's: its containers reach no service of the host (internal networks). */
export const NO_HOST_ADDRESS_OPTION = 'com.docker.network.bridge.inhibit_ipv4';

/** Callers at the same moment share one lookup, so one engine never makes the network twice. */
const pending = new Map<string, Promise<string>>();

/** The rollout network's name (`name`: another, for tests), once it exists with inter-container traffic off. */
export function rolloutNetwork(docker: Docker, name = ROLLOUT_NETWORK): Promise<string> {
  let lookup = pending.get(name);
  if (!lookup) {
    lookup = ensureNetwork(docker, name)
      .catch((err: unknown) => {
        if (err instanceof HudStudioError) throw err;
        throw new ContainerError(`could not set up the Docker network "${name}": ${dockerMessage(err)}`, {
          cause: err,
        });
      })
      .finally(() => pending.delete(name));
    pending.set(name, lookup);
  }
  return lookup;
}

async function named(docker: Docker, name: string): Promise<Docker.NetworkInspectInfo[]> {
  const found = await docker.listNetworks({ filters: { name: [name] } });
  // The filter matches names that contain it; only the exact name is ours.
  return found
    .filter((n) => n.Name === name)
    .sort((a, b) => a.Created.localeCompare(b.Created) || a.Id.localeCompare(b.Id));
}

async function ensureNetwork(docker: Docker, name: string): Promise<string> {
  let found = await named(docker, name);
  if (found.length === 0) {
    try {
      await docker.createNetwork({
        Name: name,
        Driver: 'bridge',
        Labels: { [LABELS.network]: 'rollouts' },
        Options: { [ICC_OPTION]: 'false' },
      });
    } catch (err) {
      // Docker 25 and later refuse a second network of a name (409): another engine made it since we looked.
      if (dockerStatus(err) !== 409) throw err;
    }
    found = await named(docker, name);
  }
  const net = found[0];
  if (!net || net.Driver !== 'bridge' || net.Options?.[ICC_OPTION] !== 'false') {
    throw new HudStudioError(
      'provider',
      `the Docker network "${name}" lets its containers reach each other (driver ${net?.Driver ?? 'none'}, ${ICC_OPTION}=${net?.Options?.[ICC_OPTION] ?? 'unset'}), so rollouts on it could reach one another`,
      { hint: `remove it (\`docker network rm ${name}\`); HUD Studio makes it again with that traffic off` },
    );
  }
  // Docker before 25 makes a second network of the same name when two engines ask at once, and then starts no
  // container on either ("ambiguous"): so none has any yet, and all but the oldest go.
  for (const extra of found.slice(1)) {
    try {
      await docker.getNetwork(extra.Id).remove();
    } catch (err) {
      if (dockerStatus(err) !== 404) throw err;
    }
  }
  return name;
}
