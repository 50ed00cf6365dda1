/**
 * The capability protocols the engine itself speaks (docs/hud-protocol.md,
 * docs/sdk-compatibility.md), by the names environments publish them under.
 */

/** The HUD SDK's workspace: an SSH daemon with public-key login. */
export const SSH_PROTOCOL = 'ssh/2';

/** What `env.workspace()` publishes in the bundled runtime, which has no SSH daemon. */
export const HUD_STUDIO_SHELL_PROTOCOL = 'hud-studio-shell/1';

/** `mcp/2025-11-25` and any other revision: the family is what decides the client. */
export function isMcpProtocol(protocol: string): boolean {
  return protocol.split('/')[0] === 'mcp';
}
