import { dockerUnderTest } from '../docker/dockerUnderTest';
import { defineTunnelTests } from './tunnels';

// The fixture's runtime_config runs it in hud-studio/test-openssh:bookworm (scripts/setup-docker.sh) with network
// none: the workspace is reachable only through tunnels, and the user proves commands ran over ssh as `agent`.
defineTunnelTests({
  put: dockerUnderTest,
  wire: 'openai',
  envFile: 'ssh_env.py',
  shellVia: /bash and editor act through ssh\/2 capability "shell" \(user agent\)/,
  firstOutput: /^agent\n\/home\/agent\/work\nlo\n/,
});
