// A Docker CLI config folder for the tests' compose-v2 layer (test.mjs). The layer puts Compose v2 in front of
// whatever Compose the machine has by pointing DOCKER_CONFIG at a folder whose cli-plugins hold the v2 plugin
// (setup-compose-v2.sh). Pointed at the plugin's own folder, the CLI lost the user's config: a developer whose
// `docker` talks to another daemon through a context (rootless Docker, a remote engine) ran the layer against
// the default socket, and without their registry credentials. So the folder made here holds links to everything
// of the user's config folder (config.json, contexts, other CLI plugins), with the v2 plugin in place of any
// docker-compose of theirs.
import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const PLUGINS = 'cli-plugins';
const COMPOSE = 'docker-compose';

/** The folder the Docker CLI reads its config from for `env` (`DOCKER_CONFIG`, else `~/.docker`). */
export function userDockerConfig(env) {
  return env.DOCKER_CONFIG || join(homedir(), '.docker');
}

function entries(dir) {
  return existsSync(dir) ? readdirSync(dir) : [];
}

/**
 * Makes `into` (a new folder) the user's Docker config folder `user` with `plugin` (the Compose v2 binary) as
 * its `docker compose`; returns `into`.
 */
export function composeV2Config(plugin, into, user) {
  mkdirSync(join(into, PLUGINS), { recursive: true });
  for (const name of entries(user)) if (name !== PLUGINS) symlinkSync(join(user, name), join(into, name));
  for (const name of entries(join(user, PLUGINS)))
    if (name !== COMPOSE) symlinkSync(join(user, PLUGINS, name), join(into, PLUGINS, name));
  symlinkSync(plugin, join(into, PLUGINS, COMPOSE));
  return into;
}
