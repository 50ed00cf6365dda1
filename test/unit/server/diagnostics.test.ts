/**
 * Every diagnostic code fires in one case and stays silent in a near miss.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { join } from 'node:path';
import { SEVERITY } from '../../../server/src/analysis/diagnostics';
import { ENV_HEADER, py, workspace } from './helpers';

const ACTOR = py`
  from hud import Environment

  actor = Environment("workspace")
  judge = Environment("judge")

  @actor.template(id="solve")
  async def solve(level: int, mode: str = "fast", *, retries: int = 1):
      answer = yield "Write the secret."
      yield {"score": 0.0, "answer": answer}

  @judge.template(id="verify")
  async def verify(expected: str = "secret"):
      result = yield ""
      yield 1.0 if result["answer"] == expected else 0.0

  @actor.template(id="same_env_check")
  async def same_env_check():
      result = yield None
      yield 1.0 if result.get("answer") else 0.0
`;

async function codesFor(extra: string): Promise<{ codes: string[]; messages: string[] }> {
  const ws = await workspace({ 'env.py': `${ACTOR}\n${py([extra] as unknown as TemplateStringsArray)}` });
  const problems = ws.problems('env.py');
  return { codes: problems.map((p) => p.code), messages: problems.map((p) => p.message) };
}

describe('diagnostics: each code fires and has a near miss', () => {
  test('the base file is clean', async () => {
    assert.deepEqual((await codesFor('t = solve(1)\n')).codes, []);
  });

  test('severities are the ones the issue lists', () => {
    for (const code of [
      'verifier-field-missing',
      'verifier-not-agentless',
      'template-single-yield',
      'service-access-docker-socket',
    ]) {
      assert.equal(SEVERITY[code as keyof typeof SEVERITY], 'warning', code);
    }
    assert.equal(SEVERITY['task-arg-type'], 'warning');
    assert.equal(SEVERITY['grade-not-awaited'], 'error');
    assert.ok(!('verifier-two-substrate' in SEVERITY), 'the recommended two-environment pattern is not a diagnostic');
    for (const code of [
      'verifier-unknown-template',
      'verifier-nested',
      'result-missing-score',
      'task-bad-args',
      'template-not-async-generator',
      'template-duplicate-id',
      'v5-scenario-api',
      'harbor-invalid-toml',
      'harbor-schema',
      'harbor-missing-tests-dockerfile',
      'harbor-missing-test-sh',
      'harbor-missing-instruction',
    ]) {
      assert.equal(SEVERITY[code as keyof typeof SEVERITY], 'error', code);
    }
  });

  test('verifier-unknown-template', async () => {
    const fired = await codesFor('t = solve(1)\nt.verifier = verfy(expected="x")\n');
    assert.ok(fired.codes.includes('verifier-unknown-template'));
    assert.match(
      fired.messages.find((m) => m.includes('verfy'))!,
      /fix:/,
    );
    const plain = await codesFor('def helper():\n    return None\n\nt = solve(1)\nt.verifier = helper\n');
    assert.ok(plain.codes.includes('verifier-unknown-template'), 'a plain function is not a task');
    const bare = await codesFor('t = solve(1)\nt.verifier = verify\n');
    assert.match(bare.messages.join(), /the template itself, not a task.*fix: call it, `verify\(\.\.\.\)`/);
    // What a function returns is known only by running it: a factory may well return a Task.
    const factory = await codesFor(
      'def make():\n    return verify(expected="x")\n\nt = solve(1)\nt.verifier = make()\nu = solve(2)\nmade = make()\nu.verifier = made\n',
    );
    assert.deepEqual(factory.codes, []);
    const cleared = await codesFor('t = solve(1)\nt.verifier = verify()\nt.verifier = None\n');
    assert.deepEqual(cleared.codes, []);
    const ok = await codesFor('t = solve(1)\nt.verifier = verify(expected="x")\n');
    assert.ok(!ok.codes.includes('verifier-unknown-template'));
    const external = await codesFor('from somewhere_else import checker\nt = solve(1)\nt.verifier = checker()\n');
    assert.ok(!external.codes.includes('verifier-unknown-template'), 'names from outside the workspace are not judged');
  });

  test('verifier-on-list and verifier-on-taskset', async () => {
    const list = await codesFor('suite = [solve(1), solve(2)]\nsuite.verifier = verify()\n');
    assert.deepEqual(list.codes, ['verifier-on-list']);
    assert.match(list.messages[0]!, /AttributeError.*fix: set it on each task, e\.g\. `suite\[0\]\.verifier = \.\.\.`/);
    const taskset = await codesFor(
      'from hud import Taskset\nsuite = Taskset("s", [solve(1)])\nsuite.verifier = verify()\n',
    );
    assert.deepEqual(taskset.codes, ['verifier-on-taskset']);
    const ok = await codesFor('suite = [solve(1), solve(2)]\nsuite[0].verifier = verify()\n');
    assert.deepEqual(ok.codes, []);
  });

  test('task-duplicate-slug and taskset-duplicate-slug', async () => {
    const twice = await codesFor('a = solve(1)\nb = solve(level=1)\n');
    assert.deepEqual(twice.codes, ['task-duplicate-slug']);
    assert.match(twice.messages[0]!, /hud eval.*duplicate task slugs.*fix:/);
    const inTaskset = await codesFor('from hud import Taskset\nts = Taskset("s", [solve(1), solve(1)])\n');
    assert.deepEqual(inTaskset.codes, ['taskset-duplicate-slug']);
    assert.equal(SEVERITY['taskset-duplicate-slug'], 'error');
    const ok = await codesFor('a = solve(1)\nb = solve(2)\n_c = solve(1)\n');
    assert.deepEqual(ok.codes, []);
  });

  test('task-unknown-template', async () => {
    const fired = await codesFor('from hud import Task\nt = Task(env="workspace", id="slove")\n');
    assert.deepEqual(fired.codes, ['task-unknown-template']);
    assert.match(fired.messages[0]!, /fix:/);
    const ok = await codesFor('from hud import Task\nt = Task(env="workspace", id="solve", args={"level": 1})\n');
    assert.deepEqual(ok.codes, []);
  });

  test('verifier-nested', async () => {
    // A template call takes no verifier= (the SDK raises TypeError): that is a bad argument, not a nested verifier.
    const inline = await codesFor('t = solve(1)\nt.verifier = verify(verifier=verify())\n');
    assert.ok(inline.codes.includes('task-bad-args') && !inline.codes.includes('verifier-nested'), inline.codes.join());
    const byName = await codesFor('v = verify()\nv.verifier = verify()\nt = solve(1)\nt.verifier = v\n');
    assert.ok(byName.codes.includes('verifier-nested'));
    const ok = await codesFor('v = verify()\nt = solve(1)\nt.verifier = v\n');
    assert.ok(!ok.codes.includes('verifier-nested'));
    assert.ok(!ok.codes.includes('verifier-unknown-template'));
    // `v.verifier = None` takes away the verifier v's call gave it: a Task(verifier=...), or a factory's.
    const explicit = 'from hud import Task\nv = Task(env="judge", id="verify", verifier=verify())\n';
    const factory = 'def make():\n    x = verify()\n    x.verifier = verify()\n    return x\n\nv = make()\n';
    for (const made of [explicit, factory]) {
      const given = await codesFor(`${made}t = solve(1)\nt.verifier = v\n`);
      assert.ok(given.codes.includes('verifier-nested'), given.codes.join());
      const cleared = await codesFor(`${made}v.verifier = None\nt = solve(1)\nt.verifier = v\n`);
      assert.ok(!cleared.codes.includes('verifier-nested'), cleared.codes.join());
    }
  });

  test('verifier-not-agentless', async () => {
    const extra =
      '@judge.template(id="chatty")\nasync def chatty():\n    r = yield "Please grade this"\n    yield 1.0\n\n';
    const fired = await codesFor(`${extra}t = solve(1)\nt.verifier = chatty()\n`);
    assert.ok(fired.codes.includes('verifier-not-agentless'));
    const ok = await codesFor('t = solve(1)\nt.verifier = verify()\n');
    assert.ok(!ok.codes.includes('verifier-not-agentless'));
  });

  test('verifier-field-missing', async () => {
    const extra =
      '@judge.template(id="strict")\nasync def strict():\n    r = yield ""\n    yield 1.0 if r["answer"] and r["trace"] else 0.0\n\n';
    const fired = await codesFor(`${extra}t = solve(1)\nt.verifier = strict()\n`);
    const msg = fired.messages.find((m) => m.includes('"trace"'));
    assert.ok(fired.codes.includes('verifier-field-missing'));
    assert.ok(msg && /add "trace"/.test(msg), msg);
    assert.ok(!fired.messages.some((m) => m.includes('reads "answer"')), 'answer is yielded by the actor');
    const ok = await codesFor('t = solve(1)\nt.verifier = verify()\n');
    assert.ok(!ok.codes.includes('verifier-field-missing'));
  });

  test('result-missing-score', async () => {
    const missing = await codesFor(
      '@actor.template()\nasync def bad():\n    a = yield "go"\n    yield {"answer": a}\n',
    );
    assert.ok(missing.codes.includes('result-missing-score'));
    const text = await codesFor(
      '@actor.template()\nasync def bad():\n    a = yield "go"\n    yield {"score": "high"}\n',
    );
    assert.ok(text.codes.includes('result-missing-score'));
    const ok = await codesFor(
      '@actor.template()\nasync def good():\n    a = yield "go"\n    yield {"score": 0.5, "answer": a}\n',
    );
    assert.ok(!ok.codes.includes('result-missing-score'));
    const spread = await codesFor('@actor.template()\nasync def good():\n    a = yield "go"\n    yield {**a}\n');
    assert.ok(!spread.codes.includes('result-missing-score'), 'a spread may carry the score');
  });

  test('task-bad-args: unknown keyword, missing argument, too many positionals', async () => {
    const unknown = await codesFor('t = solve(1, colour="red")\n');
    assert.deepEqual(unknown.codes, ['task-bad-args']);
    assert.match(unknown.messages[0]!, /unexpected keyword argument "colour"/);
    const missing = await codesFor('t = solve(mode="slow")\n');
    assert.deepEqual(missing.codes, ['task-bad-args']);
    assert.match(missing.messages[0]!, /missing the required argument "level"/);
    const many = await codesFor('t = solve(1, "slow", 3)\n');
    assert.deepEqual(many.codes, ['task-bad-args']);
    assert.match(many.messages[0]!, /takes 2 positional arguments but 3 were given/);
    const ok = await codesFor('t = solve(1, "slow", retries=2)\nu = solve(level=2)\nv = solve(*args)\n');
    assert.deepEqual(ok.codes, []);
  });

  test('template-not-async-generator', async () => {
    const sync = await codesFor('@actor.template()\ndef plain():\n    x = yield "a"\n    yield 1.0\n');
    assert.ok(sync.codes.includes('template-not-async-generator'));
    const noYield = await codesFor('@actor.template()\nasync def coro():\n    return 1.0\n');
    assert.ok(noYield.codes.includes('template-not-async-generator'));
    const ok = await codesFor('@actor.template()\nasync def gen():\n    x = yield "a"\n    yield 1.0\n');
    assert.ok(!ok.codes.includes('template-not-async-generator'));
    const inString = await codesFor(
      '@actor.template()\nasync def fake():\n    """This would yield twice."""\n    return 1\n',
    );
    assert.ok(inString.codes.includes('template-not-async-generator'), 'a yield in a docstring is not a yield');
  });

  test('template-duplicate-id', async () => {
    const fired = await codesFor(
      '@actor.template(id="solve")\nasync def solve_again():\n    x = yield "a"\n    yield 1.0\n',
    );
    assert.ok(fired.codes.includes('template-duplicate-id'));
    const otherEnv = await codesFor(
      '@judge.template(id="solve")\nasync def judge_solve():\n    x = yield ""\n    yield 1.0\n',
    );
    assert.ok(!otherEnv.codes.includes('template-duplicate-id'), 'ids are per environment');
  });

  test('template-single-yield', async () => {
    const fired = await codesFor('@actor.template()\nasync def once():\n    yield "just a prompt"\n');
    assert.ok(fired.codes.includes('template-single-yield'));
    const loop = await codesFor('@actor.template()\nasync def looped():\n    for p in ["a", "b"]:\n        yield p\n');
    assert.ok(!loop.codes.includes('template-single-yield'), 'a yield in a loop may run twice');
    const nested = await codesFor(
      '@actor.template()\nasync def outer():\n    def inner():\n        yield 1\n    yield "prompt"\n    yield 1.0\n',
    );
    assert.ok(!nested.codes.includes('template-single-yield'));
    assert.ok(!nested.codes.includes('template-not-async-generator'));
  });

  test('a verifier in another environment (the recommended pattern) gets no squiggle', async () => {
    const twoEnvs = await codesFor('t = solve(1)\nt.verifier = verify()\n');
    assert.deepEqual(twoEnvs.codes, []);
    const same = await codesFor('t = solve(1)\nt.verifier = same_env_check()\n');
    assert.deepEqual(same.codes, []);
  });

  test('task-arg-type: a literal the SDK cannot convert to the annotation', async () => {
    const fired = await codesFor('t = solve(level="three")\n');
    assert.deepEqual(fired.codes, ['task-arg-type']);
    assert.match(fired.messages[0]!, /level="three" is not an int \(level: int\)/);
    const positional = await codesFor('t = solve("three")\n');
    assert.deepEqual(positional.codes, ['task-arg-type']);
    const strGetsInt = await codesFor('t = solve(1, mode=3)\n');
    assert.deepEqual(strGetsInt.codes, ['task-arg-type']);
    // The SDK converts these, as pydantic's lax mode does.
    for (const ok of [
      't = solve(level="12")\n',
      't = solve(level=3.0)\n',
      't = solve(1, mode="slow")\n',
      't = solve(level=x)\n',
    ]) {
      assert.deepEqual((await codesFor(ok)).codes, [], ok);
    }
  });

  test('grade-not-awaited: yielding combine(...) or a grader without await', async () => {
    const extra = (body: string) =>
      `from hud.graders import combine, exact_match, BashGrader\n@actor.template()\nasync def g():\n    a = yield "p"\n    ${body}\n`;
    assert.deepEqual((await codesFor(extra('yield combine(exact_match(a, "x"))'))).codes, ['grade-not-awaited']);
    assert.deepEqual((await codesFor(extra('yield BashGrader.grade(command="true")'))).codes, ['grade-not-awaited']);
    assert.deepEqual((await codesFor(extra('yield await combine(exact_match(a, "x"))'))).codes, []);
    assert.deepEqual((await codesFor(extra('yield exact_match(a, "x")'))).codes, [], 'exact_match is not a coroutine');
    const local = `@actor.template()\nasync def h():\n    a = yield "p"\n    yield combine(a)\ndef combine(x):\n    return 1.0\n`;
    assert.deepEqual((await codesFor(local)).codes, [], 'a combine of your own is not the SDK one');
  });

  test('service-access-docker-socket', async () => {
    const fired = await codesFor('config = dict(compose=dict(service_access=True))\n');
    assert.ok(fired.codes.includes('service-access-docker-socket'));
    const dictForm = await codesFor('config = {"service_access": True}\n');
    assert.ok(dictForm.codes.includes('service-access-docker-socket'));
    const off = await codesFor(
      'config = dict(compose=dict(service_access=False))\n# service_access=True in a comment\n',
    );
    assert.ok(!off.codes.includes('service-access-docker-socket'));
  });

  test('v5-scenario-api', async () => {
    const fired = await codesFor('@actor.scenario("old")\nasync def old():\n    yield "x"\n    yield 1.0\n');
    assert.ok(fired.codes.includes('v5-scenario-api'));
    assert.match(
      fired.messages.find((m) => m.includes('scenario'))!,
      /rename it to @actor\.template/,
    );
    const unrelated = await codesFor(
      'class Thing:\n    pass\n\nthing = Thing()\n\n@thing.scenario\ndef other():\n    pass\n',
    );
    assert.ok(!unrelated.codes.includes('v5-scenario-api'), 'only environments have the v5 API');
  });
});

describe('diagnostics: Harbor task directories', () => {
  const TOML = '[task]\nname = "acme/hello"\n\n[verifier]\ntimeout_sec = 60\n';
  const ALL = ['t/instruction.md', 't/tests/test.sh'];
  // The forgeable hint has its own test below; the others look at the rest.
  const harborCodes = (ws: { codes(rel: string): string[] }): string[] =>
    ws.codes('t/task.toml').filter((c) => c !== 'harbor-shared-forgeable');

  test('harbor-shared-forgeable suggests the separate mode when a root agent shares the verifier', async () => {
    const shared = await workspace({ 't/task.toml': TOML }, ALL);
    assert.deepEqual(shared.codes('t/task.toml'), ['harbor-shared-forgeable']);
    assert.match(shared.problems('t/task.toml')[0]!.message, /environment_mode = "separate"/);
    const nonRoot = await workspace({ 't/task.toml': `${TOML}[agent]\nuser = "agent"\n` }, ALL);
    assert.deepEqual(nonRoot.codes('t/task.toml'), []);
    const separate = await workspace({ 't/task.toml': `${TOML}environment_mode = "separate"\n` }, [
      ...ALL,
      't/tests/Dockerfile',
    ]);
    assert.deepEqual(separate.codes('t/task.toml'), []);
  });

  test("compose-reaches-host: a task's compose file that reaches this machine, at the key that asks", async () => {
    const COMPOSE =
      'services:\n  main:\n    image: base:1\n    privileged: true\n    volumes:\n      - /srv/share:/share\n      - ./cache:/cache\n      - ../tests:/tests:ro\n  db:\n    image: db:1\n    cap_add: [NET_ADMIN]\n';
    const harbor = await workspace({ 't/task.toml': TOML, 't/environment/docker-compose.yaml': COMPOSE }, ALL);
    const found = harbor.problems('t/environment/docker-compose.yaml');
    assert.deepEqual(
      found.map((p) => [p.code, p.severity, p.range.start.line, p.range.start.character, p.range.end.character]),
      [
        ['compose-reaches-host', 'warning', 4, 4, 11],
        ['compose-reaches-host', 'warning', 3, 4, 14],
      ],
    );
    assert.match(
      found[0]!.message,
      /^service "main" binds the host's \/srv\/share: that reaches this machine.*asks for your consent first \(fix: /,
    );
    assert.match(found[1]!.message, /^service "main" runs privileged/);
    // Beside env.py it is a HUD environment's, whose folder is its own (../tests is outside it); elsewhere it is
    // the user's own compose file, and says nothing.
    const hud = await workspace({ 'e/env.py': ENV_HEADER, 'e/docker-compose.yml': COMPOSE });
    assert.deepEqual(
      hud.problems('e/docker-compose.yml').map((p) => p.message.split(':')[0]),
      [
        'service "main" binds the host\'s /srv/share',
        `service "main" binds the host's ${join(hud.path('e'), '..', 'tests')}`,
        'service "main" runs privileged (root on the host)',
      ],
    );
    const own = await workspace({ 'dev/docker-compose.yaml': COMPOSE, 'x/environment/docker-compose.yaml': COMPOSE });
    assert.deepEqual(own.codes('dev/docker-compose.yaml'), []);
    assert.deepEqual(own.codes('x/environment/docker-compose.yaml'), []);
    // It becomes a task's when its task.toml appears, and stops being one when that goes.
    own.existing.add(own.path('x/task.toml'));
    own.analyzer.setFiles([[own.path('x/task.toml'), TOML]]);
    assert.equal(own.codes('x/environment/docker-compose.yaml').length, 2);
    own.existing.delete(own.path('x/task.toml'));
    own.analyzer.deleteFile(own.path('x/task.toml'));
    assert.deepEqual(own.codes('x/environment/docker-compose.yaml'), []);
    // A file that does not reach past the task, or that is not a compose file YAML can read, says nothing here.
    const fine = await workspace(
      {
        't/task.toml': TOML,
        't/environment/docker-compose.yaml': 'services:\n  main:\n    image: x\n    volumes: [./data:/data]\n',
        'u/task.toml': TOML,
        'u/environment/docker-compose.yaml': 'services: [\n',
        // Aliases that would expand to thousands of nodes: YAML refuses to, and so the file is left alone.
        'v/task.toml': TOML,
        'v/environment/docker-compose.yaml': [
          'a: &a [x, x, x, x, x, x, x, x, x]',
          ...['b', 'c', 'd', 'e'].map((n, i) => `${n}: &${n} [${Array(9).fill(`*${'abcd'[i]}`).join(', ')}]`),
          'services: {main: {image: x, privileged: true}}',
        ].join('\n'),
      },
      [...ALL, ...['u', 'v'].flatMap((t) => [`${t}/instruction.md`, `${t}/tests/test.sh`])],
    );
    assert.deepEqual(fine.codes('t/environment/docker-compose.yaml'), []);
    assert.deepEqual(fine.codes('u/environment/docker-compose.yaml'), []);
    assert.deepEqual(fine.codes('v/environment/docker-compose.yaml'), []);
  });

  test("harbor-host-variables-to-agent: [environment] env that reads the host's variables", async () => {
    const withEnv = (env: string) => workspace({ 't/task.toml': `${TOML}\n[environment]\nenv = ${env}\n` }, ALL);
    const ws = await withEnv('{ TOKEN = "${GH_TOKEN}", MODE = "fast", KEY = "pre-${API_KEY:-none}" }');
    assert.deepEqual(harborCodes(ws), ['harbor-host-variables-to-agent']);
    const message = ws.problems('t/task.toml').find((p) => p.code === 'harbor-host-variables-to-agent')!.message;
    assert.match(message, /the host's \$\{GH_TOKEN\}, \$\{API_KEY\} into the agent's container .*can read them/);
    assert.deepEqual(harborCodes(await withEnv('{ MODE = "fast", PRICE = "$5" }')), []);
  });

  test("harbor-artifacts-where-tests-run: an artifact over a separate verifier's workdir", async () => {
    const separate = (artifacts: string, workdir: string) =>
      workspace(
        {
          't/task.toml': `artifacts = ${artifacts}\n${TOML}\n[verifier.environment]\nworkdir = "${workdir}"\n`,
        },
        [...ALL, 't/tests/Dockerfile'],
      );
    for (const [artifacts, workdir] of [
      ['["/app"]', '/app'],
      ['["/app/"]', '/app/tests'],
      ['["/logs/x", "/"]', '/check'],
    ] as const) {
      const ws = await separate(artifacts, workdir);
      assert.deepEqual(harborCodes(ws), ['harbor-artifacts-where-tests-run'], `${artifacts} over ${workdir}`);
      assert.match(ws.problems('t/task.toml')[0]!.message, /where the tests run: .*json\.py/);
    }
    for (const [artifacts, workdir] of [
      ['["/app/answer.txt"]', '/app'],
      ['["/app"]', '/check'],
      ['["/app/out"]', '/app'],
      ['["/application"]', '/app'],
    ] as const) {
      assert.deepEqual(harborCodes(await separate(artifacts, workdir)), [], `${artifacts} over ${workdir}`);
    }
    // A shared verifier runs in the agent's own container, where the turn-end check judges the modules.
    const shared = await workspace(
      { 't/task.toml': `artifacts = ["/app"]\n${TOML}\n[environment]\nworkdir = "/app"\n` },
      ALL,
    );
    assert.deepEqual(harborCodes(shared), []);
  });

  test('harbor-invalid-toml', async () => {
    const ws = await workspace({ 't/task.toml': '[task\nname = "x"\n' }, ALL);
    assert.deepEqual(harborCodes(ws), ['harbor-invalid-toml']);
    const ok = await workspace({ 't/task.toml': TOML }, ALL);
    assert.deepEqual(harborCodes(ok), []);
  });

  test('harbor-schema names the key', async () => {
    const ws = await workspace({ 't/task.toml': '[verifier]\ntimeout_sec = "soon"\n' }, ALL);
    const p = ws.problems('t/task.toml').find((x) => x.code === 'harbor-schema');
    assert.ok(p, JSON.stringify(ws.problems('t/task.toml')));
    assert.match(p.message, /verifier\.timeout_sec/);
    assert.equal(p.range.start.line, 1);
    const ok = await workspace({ 't/task.toml': '[verifier]\ntimeout_sec = 30\n' }, ALL);
    assert.deepEqual(harborCodes(ok), []);
  });

  test('harbor-missing-test-sh and harbor-missing-instruction', async () => {
    const ws = await workspace({ 't/task.toml': TOML });
    assert.deepEqual(harborCodes(ws).sort(), ['harbor-missing-instruction', 'harbor-missing-test-sh']);
    const ok = await workspace({ 't/task.toml': TOML }, ALL);
    assert.deepEqual(harborCodes(ok), []);
  });

  test('harbor-missing-tests-dockerfile only in separate mode', async () => {
    const separate = `${TOML}environment_mode = "separate"\n`;
    const ws = await workspace({ 't/task.toml': separate }, ALL);
    assert.deepEqual(harborCodes(ws), ['harbor-missing-tests-dockerfile']);
    const ok = await workspace({ 't/task.toml': separate }, [...ALL, 't/tests/Dockerfile']);
    assert.deepEqual(harborCodes(ok), []);
    const shared = await workspace({ 't/task.toml': TOML }, ALL);
    assert.deepEqual(harborCodes(shared), []);
  });

  test('creating the missing file clears the diagnostic (touch)', async () => {
    const ws = await workspace({ 't/task.toml': TOML }, ['t/instruction.md']);
    assert.deepEqual(harborCodes(ws), ['harbor-missing-test-sh']);
    ws.existing.add(ws.path('t/tests/test.sh'));
    const affected = ws.analyzer.touch(ws.path('t/tests/test.sh'));
    assert.ok(affected.has(ws.path('t/task.toml')));
    assert.deepEqual(harborCodes(ws), []);
  });
});
