/**
 * The rollout rules of docs/hud-protocol.md as tests that run on any provider.
 * engine-local runs them on Local; the Docker provider's tests call
 * defineRolloutRuleTests with a Docker ProviderUnderTest (its assertReleased
 * checks that no container is left).
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Agent } from '../../../client/src/engine/agents/agent';
import { CommandAgent } from '../../../client/src/engine/agents/command';
import { FixedAgent } from '../../../client/src/engine/agents/fixed';
import { EventHub, type RolloutEvent } from '../../../common/events';
import type { Provider, Substrate } from '../../../client/src/engine/providers/provider';
import type { FinishedRollout as RolloutOutcome } from '../../../client/src/engine/outcome';
import { runRollout, type RolloutOptions } from '../../../client/src/engine/rollout';
import { readTrace } from '../../../client/src/engine/trace/store';

export const REPO_ROOT = join(__dirname, '..', '..', '..');
export const FIXTURES = {
  twoEnv: join(REPO_ROOT, 'test', 'fixtures', 'python', 'verifier_two_env', 'env.py'),
  sameEnv: join(REPO_ROOT, 'test', 'fixtures', 'python', 'verifier_same_env', 'env.py'),
  rules: join(__dirname, 'fixtures', 'rules', 'env.py'),
};

/** Everything the tests write goes under one folder, removed when the test process exits. */
const SCRATCH = mkdtempSync(join(tmpdir(), 'hs-engine-tests-'));
export const removeScratch = (): void => rmSync(SCRATCH, { recursive: true, force: true });
process.on('exit', removeScratch);

export function scratchDir(prefix: string): string {
  return mkdtempSync(join(SCRATCH, prefix));
}

export interface ProviderUnderTest {
  name: string;
  create(): Provider;
  /** Budget for a substrate to come up (an image build may need more); default 60 s. */
  startupMs?: number;
  /**
   * Proves nothing of these substrates is left (process groups, folders,
   * containers). `rolloutId` lets a provider also look for what it started
   * but never handed out (e.g. a container labelled with the rollout id when
   * the cancel came during acquire).
   */
  assertReleased(substrates: Substrate[], rolloutId: string): Promise<void>;
}

/** Wraps a provider to keep every substrate it hands out. */
export function recording(inner: Provider): { provider: Provider; substrates: Substrate[] } {
  const substrates: Substrate[] = [];
  const provider: Provider = {
    kind: inner.kind,
    // So the rules are checked with the verifier's substrate made while the actor works, where the provider does that.
    isolatesSubstrates: (spec) => inner.isolatesSubstrates?.(spec) ?? false,
    acquire: async (spec, opts) => {
      const s = await inner.acquire(spec, opts);
      substrates.push(s);
      return s;
    },
  };
  return { provider, substrates };
}

export interface RolloutRun {
  outcome: RolloutOutcome;
  substrates: Substrate[];
  events: RolloutEvent[];
}

export async function rolloutOn(
  put: ProviderUnderTest,
  ref: string,
  agent: Agent,
  extra: Partial<RolloutOptions> & {
    onEvent?: (e: RolloutEvent, abort: () => void, substrates: Substrate[]) => void;
  } = {},
): Promise<RolloutRun> {
  const { provider, substrates } = recording(put.create());
  const hub = new EventHub();
  const events: RolloutEvent[] = [];
  const ctl = new AbortController();
  hub.on((e) => {
    events.push(e);
    extra.onEvent?.(e, () => ctl.abort(), substrates);
  });
  const { onEvent: _ignored, ...rest } = extra;
  const outcome = await runRollout({
    ref,
    provider,
    agent,
    hub,
    signal: ctl.signal,
    traceDir: scratchDir('traces-'),
    ...rest,
    timeouts: { startupMs: put.startupMs ?? 60_000, ...rest.timeouts },
  });
  return { outcome, substrates, events };
}

function info(outcome: RolloutOutcome): Record<string, unknown> {
  return outcome.result?.info ?? {};
}

export function defineRolloutRuleTests(put: ProviderUnderTest): void {
  const run = (ref: string, agent: Agent, extra?: Parameters<typeof rolloutOn>[3]) => rolloutOn(put, ref, agent, extra);
  const secret = new FixedAgent('secret');

  describe(`rollout rules on ${put.name}`, () => {
    // Also here, not only at exit: a runner may kill a process whose sockets linger.
    after(removeScratch);
    test("two environments, right answer: reward 1 from a fresh verifier substrate that cannot see the actor's file", async () => {
      const { outcome, substrates } = await run(`${FIXTURES.twoEnv}::task`, secret);
      assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
      assert.equal(outcome.reward, 1);
      assert.equal(substrates.length, 2, 'actor and verifier each get a substrate');
      const [actor, verifier] = outcome.trace.phases;
      assert.deepEqual([actor!.name, verifier!.name, verifier!.reused], ['actor', 'verifier', false]);
      assert.notEqual(actor!.substrate!.id, verifier!.substrate!.id);
      assert.equal(info(outcome)['saw_actor_file'], false);
      const trace = readTrace(outcome.tracePath!);
      assert.equal(trace.provider.verifierSubstrate, 'fresh');
      assert.deepEqual(trace.actorResult, { score: 0, answer: 'secret' }, 'the raw actor frame is recorded');
      assert.equal(trace.answer, 'secret');
      assert.match(trace.task.sourceHash, /^[0-9a-f]{64}$/);
      assert.match(trace.task.source ?? '', /async def solve/);
      assert.equal(trace.verifier?.env, 'judge');
      // The verifier received the actor's frame unchanged (its raw grade echoes nothing, so check the phase order
      // instead).
      assert.ok(Date.parse(trace.phases[0]!.endedAt!) <= Date.parse(trace.phases[1]!.startedAt));
      if (put.name === 'docker') {
        // The verifier's container is made while the actor works; what making it logged is the verifier's.
        const made = (phase: number, id: string): boolean =>
          trace.phases[phase]!.logs.some((l) => l.text.startsWith(`container ${id.slice(0, 12)} of`));
        assert.ok(made(1, verifier!.substrate!.id), "the verifier's log names its container");
        assert.ok(!made(0, verifier!.substrate!.id), "the actor's log does not");
        assert.ok(made(0, actor!.substrate!.id));
        // The engine's own timing of its work: both containers' making, copy and removal, the actor's discovery.
        const spans = new Set((trace.spans ?? []).map((s) => `${s.phase}: ${s.name}`));
        for (const phase of ['actor', 'verifier'])
          for (const name of ['container create and start', 'copy in (pre-started interpreter)', 'container remove'])
            assert.ok(spans.has(`${phase}: ${name}`), `span ${phase}: ${name} in ${[...spans].join(', ')}`);
        for (const name of ['actor: discovery', 'actor: server start', 'verifier: tasks.grade'])
          assert.ok(spans.has(name), `span ${name}`);
        assert.ok(trace.spans!.every((s) => s.atMs >= 0 && s.ms >= 0 && s.atMs + s.ms <= trace.durationMs! + 1));
      }
      await put.assertReleased(substrates, outcome.rolloutId);
    });

    test('two environments, wrong answer: reward 0', async () => {
      const { outcome, substrates } = await run(`${FIXTURES.twoEnv}::task`, new FixedAgent('guess'));
      assert.equal(outcome.status, 'completed');
      assert.equal(outcome.reward, 0);
      await put.assertReleased(substrates, outcome.rolloutId);
    });

    test("same environment: the verifier reuses the actor's substrate and channel, and the trace warns", async () => {
      const { outcome, substrates } = await run(FIXTURES.sameEnv, secret);
      assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
      assert.equal(outcome.reward, 1);
      assert.equal(substrates.length, 1, 'one substrate for both phases');
      assert.equal(outcome.trace.phases[1]!.reused, true);
      assert.equal(outcome.trace.phases[0]!.substrate!.id, outcome.trace.phases[1]!.substrate!.id);
      assert.equal(info(outcome)['saw_actor_file'], true, "a shared substrate shows the actor's file");
      assert.equal(outcome.trace.provider.verifierSubstrate, 'reused');
      assert.ok(outcome.trace.warnings.some((w) => /actor could have seen/.test(w)));
      await put.assertReleased(substrates, outcome.rolloutId);
    });

    test('same environment, wrong answer: reward 0', async () => {
      const { outcome } = await run(FIXTURES.sameEnv, new FixedAgent('nope'));
      assert.equal(outcome.reward, 0);
    });

    test('actor grading fails: the verifier still grades an error result that keeps the answer; the run is errored', async () => {
      const { outcome, substrates } = await run(`${FIXTURES.rules}::actor_grade_fails`, new FixedAgent('kept'));
      // As in the SDK: the verifier's reward stands and the run is marked as errored in the actor phase.
      assert.equal(outcome.status, 'error');
      assert.equal(outcome.error?.phase, 'actor');
      assert.match(outcome.error?.message ?? '', /actor grading failed/);
      assert.equal(outcome.trace.status, 'error');
      assert.equal(outcome.trace.result?.reward, 1);
      assert.equal(outcome.reward, 1, 'the verifier saw {isError: true, answer: "kept"}');
      const received = info(outcome)['received'] as Record<string, unknown>;
      assert.equal(received['score'], 0);
      assert.equal(received['isError'], true);
      assert.match(String(received['content']), /actor grader exploded on kept/);
      assert.equal(outcome.trace.phases[0]!.status, 'error');
      assert.deepEqual(outcome.trace.actorResult, received, 'the stand-in frame went to the verifier unchanged');
      await put.assertReleased(substrates, outcome.rolloutId);
    });

    test('actor grading fails without a verifier: the run errors in the actor phase', async () => {
      const { outcome, substrates } = await run(`${FIXTURES.rules}::actor_grade_fails_alone`, new FixedAgent('x'));
      assert.equal(outcome.status, 'error');
      assert.equal(outcome.reward, null);
      assert.equal(outcome.error?.phase, 'actor');
      assert.match(outcome.error.message, /actor grader exploded/);
      await put.assertReleased(substrates, outcome.rolloutId);
    });

    test("no verifier: the actor's grade is the reward", async () => {
      const { outcome } = await run(`${FIXTURES.rules}::no_verifier`, new FixedAgent('x'));
      assert.equal(outcome.status, 'completed');
      assert.equal(outcome.reward, 0.5);
      assert.equal(outcome.trace.provider.verifierSubstrate, 'none');
      assert.equal(outcome.trace.phases.length, 1);
    });

    test("verifier grading fails: errored and ungraded, never the actor's provisional grade", async () => {
      const { outcome, substrates } = await run(`${FIXTURES.rules}::verifier_fails`, new FixedAgent('x'));
      assert.equal(outcome.status, 'error');
      assert.equal(outcome.reward, null);
      assert.equal(outcome.result, null);
      assert.equal(outcome.error?.phase, 'verifier');
      assert.match(outcome.error.message, /verifier exploded/);
      const trace = readTrace(outcome.tracePath!);
      assert.equal(trace.result, null);
      assert.equal(trace.phases[0]!.grade?.reward, 0.5, 'the provisional grade stays in the actor phase only');
      await put.assertReleased(substrates, outcome.rolloutId);
    });

    test('verifier provisioning fails: errored and ungraded', async () => {
      const { outcome, substrates } = await run(`${FIXTURES.rules}::verifier_cannot_start`, new FixedAgent('x'));
      assert.equal(outcome.status, 'error');
      assert.equal(outcome.reward, null);
      assert.equal(outcome.error?.phase, 'verifier');
      assert.match(outcome.error.message, /ghost/);
      await put.assertReleased(substrates, outcome.rolloutId);
    });

    test('a phase timeout errors the run, names the phase, and releases everything', async () => {
      // The phase clock also runs while the substrate starts: under load a Docker start took over 1.5 s, so the
      // budget leaves room for that and still ends long before the agent's sleep would.
      const { outcome, substrates } = await run(`${FIXTURES.rules}::no_verifier`, new CommandAgent('sleep 60'), {
        timeouts: { phaseMs: 6_000 },
      });
      assert.equal(outcome.status, 'error');
      assert.equal(outcome.error?.phase, 'actor');
      assert.match(outcome.error.message, /actor phase timed out after 6 s/);
      await put.assertReleased(substrates, outcome.rolloutId);
    });

    test("the task's own limits.run_timeout_s bounds its phase", async () => {
      const { outcome, substrates } = await run(`${FIXTURES.rules}::slow_with_limit`, new FixedAgent('x'));
      assert.equal(outcome.status, 'error');
      assert.match(outcome.error!.message, /actor phase timed out after 1 s/);
      await put.assertReleased(substrates, outcome.rolloutId);
    });

    test('a rollout timeout stops a grading that never returns', async () => {
      const { outcome, substrates } = await run(`${FIXTURES.rules}::slow_grade`, new FixedAgent('x'), {
        timeouts: { rolloutMs: 3_000 },
      });
      assert.equal(outcome.status, 'error');
      assert.match(outcome.error!.message, /rollout timed out/);
      await put.assertReleased(substrates, outcome.rolloutId);
    });

    for (const [when, match] of [
      [
        'while the actor substrate starts',
        (e: RolloutEvent) => e.type === 'step' && e.phase === 'actor' && e.step === 'setup' && e.status === 'started',
      ],
      ['while the agent works', (e: RolloutEvent) => e.type === 'step' && e.step === 'agent' && e.status === 'started'],
      ['when the verifier phase starts', (e: RolloutEvent) => e.type === 'phase.started' && e.phase === 'verifier'],
    ] as const) {
      test(`cancellation ${when} releases every substrate and records "cancelled"`, async () => {
        const agent = new CommandAgent('sleep 60; echo secret');
        let fired = false;
        const { outcome, substrates, events } = await run(
          `${FIXTURES.twoEnv}::task`,
          when === 'when the verifier phase starts' ? secret : agent,
          {
            onEvent: (e, abort) => {
              if (!fired && match(e)) {
                fired = true;
                setImmediate(abort);
              }
            },
          },
        );
        assert.ok(fired, 'the cancel point was reached');
        assert.equal(outcome.status, 'cancelled');
        assert.equal(outcome.reward, null);
        assert.equal(readTrace(outcome.tracePath!).status, 'cancelled');
        assert.equal(events.at(-1)?.type, 'rollout.ended');
        await put.assertReleased(substrates, outcome.rolloutId);
      });
    }

    test('credentials go only to substrates of the environment that declares them', async () => {
      const { outcome } = await run(`${FIXTURES.rules}::credentials_split`, new FixedAgent('x'), {
        credentials: { workspace: { WORKSPACE_KEY: 'w' }, judge: { JUDGE_KEY: 'j' } },
        verifierSecrets: { VERIFIER_SECRET: 'v' },
      });
      assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
      const verifierEnv = info(outcome)['env'] as Record<string, unknown>;
      const actorEnv = (
        (info(outcome)['received'] as Record<string, unknown>)['info'] as Record<string, Record<string, unknown>>
      )['env']!;
      assert.deepEqual(actorEnv, {
        WORKSPACE_KEY: 'w',
        JUDGE_KEY: null,
        VERIFIER_SECRET: null,
        HUD_STUDIO_PARENT_SECRET: null,
      });
      assert.deepEqual(verifierEnv, {
        WORKSPACE_KEY: null,
        JUDGE_KEY: 'j',
        VERIFIER_SECRET: 'v',
        HUD_STUDIO_PARENT_SECRET: null,
      });
    });

    test('a shared substrate never gets verifier-only secrets unless allowed, and the trace says so', async () => {
      const withheld = await run(`${FIXTURES.rules}::credentials_shared`, new FixedAgent('x'), {
        verifierSecrets: { VERIFIER_SECRET: 'v' },
      });
      assert.equal(withheld.outcome.trace.phases[1]!.reused, true);
      assert.equal((info(withheld.outcome)['env'] as Record<string, unknown>)['VERIFIER_SECRET'], null);
      assert.ok(withheld.outcome.trace.warnings.some((w) => /VERIFIER_SECRET\) were NOT injected/.test(w)));

      const allowed = await run(`${FIXTURES.rules}::credentials_shared`, new FixedAgent('x'), {
        verifierSecrets: { VERIFIER_SECRET: 'v' },
        allowSharedSecrets: true,
      });
      assert.equal((info(allowed.outcome)['env'] as Record<string, unknown>)['VERIFIER_SECRET'], 'v');
      assert.ok(allowed.outcome.trace.warnings.some((w) => /were injected into the shared substrate/.test(w)));
    });

    test('a command agent runs in the actor substrate; a failing command is an agent error', async () => {
      const ok = await run(
        `${FIXTURES.twoEnv}::task`,
        new CommandAgent('cat >/dev/null; test -n "$HUD_PROMPT" && echo "  secret  "'),
      );
      assert.equal(ok.outcome.reward, 1);
      assert.equal(ok.outcome.trace.answer, 'secret');
      const bad = await run(`${FIXTURES.twoEnv}::task`, new CommandAgent('echo oops >&2; exit 3'));
      assert.equal(bad.outcome.status, 'error');
      assert.equal(bad.outcome.error?.phase, 'actor');
      assert.match(bad.outcome.error.message, /exited with code 3: oops/);
      await put.assertReleased(bad.substrates, bad.outcome.rolloutId);
    });

    test("a wrong reference is a usage error listing the file's tasks, and nothing is left running", async () => {
      const { provider, substrates } = recording(put.create());
      const rolloutId = randomUUID();
      await assert.rejects(
        runRollout({ ref: FIXTURES.rules, provider, agent: secret, traceDir: null, rolloutId }),
        (e: Error) =>
          e.name === 'UsageError' && /defines 9 tasks/.test(e.message) && e.message.includes('::verifier_fails'),
      );
      assert.equal(substrates.length, 1, 'discovery ran in a substrate');
      await put.assertReleased(substrates, rolloutId);
    });
  });
}
