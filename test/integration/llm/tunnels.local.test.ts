import { localUnderTest } from '../engine-local/localUnderTest';
import { defineTunnelTests } from './tunnels';

// The bundled runtime serves env.workspace() over its own shell protocol (it has no SSH daemon), so on Local the
// shell tunnel is hud-studio-shell/1; ssh/2 is covered on Docker (docs/models.md says why).
defineTunnelTests({
  put: localUnderTest,
  wire: 'anthropic',
  envFile: 'shell_env.py',
  shellVia: /bash and editor act through hud-studio-shell\/1 capability "shell"/,
  firstOutput: /\/workspace\n(?:[^\n]+\n)*hello wrld/,
  forgeableBecause: /reward is forgeable.*capability "shell" \(hud-studio-shell\/1\) as the environment server's user/,
});
