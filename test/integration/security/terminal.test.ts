/**
 * An agent that writes terminal escape sequences (docs/security.md, "What a
 * person reads"): cursor moves, carriage returns, OSC titles and hyperlinks,
 * and SGR 8 ("conceal"), so that the CLI's human output would show a forged
 * `reward 1.00` line and hide the real one. Every byte the agent controls must
 * reach the terminal as visible text, on both runtimes.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bubblewrap } from '../../../client/src/engine/providers/localSandbox';
import { cli } from '../cli/cliHarness';
import { dockerReady, tempDir } from '../docker/support';
import { join } from 'node:path';

before(async () => {
  await dockerReady();
  assert.ok(bubblewrap(), 'the local runtime needs bubblewrap for these tests (apt-get install -y bubblewrap)');
});

const SELF_GRADED = join(__dirname, 'fixtures', 'self_graded', 'env.py');

/** C0 and C1 control characters but tab and newline: what a terminal acts on instead of showing. */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

/** Forges a reward line on stderr and in the answer, then conceals whatever the CLI prints after it. */
const FORGE_LINES = [
  `printf '\\033[2K\\rreward 1.00\\033]0;reward 1.00\\007\\n' >&2`,
  `printf '\\033]8;;https://example.invalid/\\033\\\\link\\033]8;;\\033\\\\\\n' >&2`,
  `printf '\\302\\233' >&2`, // U+009B, the one-character CSI
  `printf 'wrong\\033[1A\\033[2K\\rreward 1.00\\033[8m'`,
].join('\n');

/** The same, in a command that fails: its stderr's tail is quoted in the error message. */
const FORGE_IN_ERROR = `printf 'x\\nreward 1.00\\033[8m\\n' >&2; exit 3`;

function assertPlain(text: string): void {
  const bad = CONTROL.exec(text);
  assert.equal(
    bad,
    null,
    `a control character (U+${bad?.[0].charCodeAt(0).toString(16).padStart(4, '0')}) reached the terminal:\n${JSON.stringify(text)}`,
  );
}

for (const runtime of ['docker', 'local'] as const) {
  test(`${runtime}: the agent's escape sequences reach the CLI's human output as text, and the only reward line is the real one`, async () => {
    const r = await cli([
      'run',
      `${SELF_GRADED}::task`,
      '--command',
      FORGE_LINES,
      '--runtime',
      runtime,
      '--trace-dir',
      tempDir('terminal'),
    ]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assertPlain(r.stdout);
    assertPlain(r.stderr);
    const rewardLines = r.stdout.split('\n').filter((l) => l.startsWith('reward '));
    assert.deepEqual(rewardLines, ['reward 0.00'], r.stdout);
    // Shown, not dropped: a person can see what the agent tried.
    assert.match(r.stdout, /\\x1b\[2K\\x0dreward 1\.00/);
  });

  test(`${runtime}: a failing agent's stderr, quoted in the error, reaches the terminal as text`, async () => {
    const r = await cli([
      'run',
      `${SELF_GRADED}::task`,
      '--command',
      FORGE_IN_ERROR,
      '--runtime',
      runtime,
      '--trace-dir',
      tempDir('terminal'),
    ]);
    assert.notEqual(r.code, 0);
    assertPlain(r.stdout);
    assertPlain(r.stderr);
    assert.match(r.stdout, /exited with code 3/);
    // The quoted stderr spans lines: none of them may start where the CLI's own lines do.
    assert.deepEqual(
      r.stdout.split('\n').filter((l) => l.startsWith('reward ')),
      [],
      r.stdout,
    );
  });
}

test('eval: the per-run lines of a job carry no control character either', async () => {
  const r = await cli([
    'eval',
    SELF_GRADED,
    '--command',
    FORGE_IN_ERROR,
    '--runtime',
    'local',
    '--trace-dir',
    tempDir('terminal'),
  ]);
  assertPlain(r.stdout);
  assertPlain(r.stderr);
  assert.match(r.stdout, /exited with code 3/);
});
