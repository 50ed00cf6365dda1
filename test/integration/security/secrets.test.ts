/**
 * Secrets (docs/security.md): a variable of the host process reaches no
 * substrate unless declared for that environment, and the value of a
 * declared secret never reaches a trace, whoever printed or returned it.
 * Run on the local runtime and on a real Docker engine.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CommandAgent } from '../../../client/src/engine/agents/command';
import { DockerProvider } from '../../../client/src/engine/providers/docker';
import { LocalProvider } from '../../../client/src/engine/providers/local';
import type { Provider } from '../../../client/src/engine/providers/provider';
import { runRollout } from '../../../client/src/engine/rollout';
import { dockerReady, tempDir } from '../docker/support';

const LEAKY = join(__dirname, 'fixtures', 'leaky', 'env.py');
const TOKEN = 'tok-3f9a61c0d2e84b7a';
const HOST_ONLY = 'host-only-b51e07d9';

const providers: { name: string; create: () => Provider; ready: () => Promise<void> }[] = [
  { name: 'local', create: () => new LocalProvider(), ready: async () => undefined },
  { name: 'docker', create: () => new DockerProvider(), ready: dockerReady },
];

for (const p of providers) {
  describe(`secrets on the ${p.name} runtime`, () => {
    before(p.ready);

    test('a declared secret is redacted from logs, prompt, answer and grades; host variables never reach the substrate', async () => {
      process.env['HUD_STUDIO_HOST_ONLY'] = HOST_ONLY;
      const dir = tempDir('secrets');
      const logged: string[] = [];
      try {
        const outcome = await runRollout({
          ref: `${LEAKY}::task`,
          provider: p.create(),
          agent: new CommandAgent('echo "$HUD_PROMPT host:[$HUD_STUDIO_HOST_ONLY]"'),
          credentials: { workspace: { API_TOKEN: TOKEN } },
          traceDir: dir,
          timeouts: { rolloutMs: 180_000 },
        });
        assert.equal(outcome.status, 'completed', outcome.error?.message);
        const text = readFileSync(outcome.tracePath!, 'utf8');
        for (const log of outcome.trace.phases.flatMap((ph) => ph.logs)) logged.push(log.text);
        // The secret really went through every channel: otherwise the redaction proves nothing.
        assert.match(text, /server sees token \[redacted API_TOKEN\]/);
        assert.match(JSON.stringify(outcome.trace.answer), /the token is \[redacted API_TOKEN\]/);
        assert.match(JSON.stringify(outcome.trace.actorResult), /"token":"\[redacted API_TOKEN\]"/);
        assert.ok(!text.includes(TOKEN), 'the token is nowhere in the trace file');
        assert.ok(!text.includes(HOST_ONLY), 'no host variable reached the substrate or the trace');
        assert.match(JSON.stringify(outcome.trace.answer), /host:\[\]/);
        assert.match(JSON.stringify(outcome.trace.actorResult), /"host":""/);
      } finally {
        delete process.env['HUD_STUDIO_HOST_ONLY'];
      }
    });
  });
}
