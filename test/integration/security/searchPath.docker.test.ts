/**
 * Where the graders look programs up (docs/security.md): an image whose
 * PATH puts a folder of the workspace first lets the agent plant the
 * `python3` a grader runs by name. HUD Studio keeps the SDK's behaviour
 * (the grader runs what the image's PATH finds) and marks the reward
 * forgeable, saying which folder; so with a relative entry, for a grader
 * that runs in the workspace. On the same image without those entries, the
 * planted program is not run and the reward is not marked.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readTrace } from '../../../client/src/engine/trace/store';
import { BASE_IMAGE, dockerReady, imageFrom } from '../docker/support';
import { peerSdkImage } from '../../conformance/peerImage';
import { completedRollout } from './rollout';

before(dockerReady);

const GRADER = join(__dirname, 'fixtures', 'path_grader', 'env.py');
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** A `python3` that passes every check, where the image's PATH looks first; and a wrong answer. */
const PLANT = [
  'mkdir -p /workspace/bin',
  `printf '#!/bin/sh\\nexit 0\\n' > /workspace/bin/python3`,
  'chmod +x /workspace/bin/python3',
  'echo wrong > answer.txt',
].join(' && ');

/** `hud-studio run` of the fixture's `task` on `image`, the agent running `command`; it must complete. */
async function graded(task: string, command: string, image: string, imageSdk = false) {
  const r = await completedRollout(`${GRADER}::${task}`, command, {
    runtime: 'docker',
    image,
    imageSdk,
    timeoutS: 180,
    traces: 'search-path',
  });
  return { ...r, trace: readTrace(r.trace) };
}

for (const [name, path, task, said] of [
  [
    'a workspace folder first on the PATH',
    `/workspace/bin:${SYSTEM_PATH}`,
    'task',
    /^the reward is forgeable: the agent's user could put programs .*"\/workspace\/bin"/,
  ],
  // The grader runs python3 in the workspace: a relative entry is a folder of the agent's there.
  [
    'a relative entry first on the PATH',
    `bin:${SYSTEM_PATH}`,
    'in_workspace',
    /^the reward is forgeable: relative entries where the graders look programs and modules up \("bin" in the image's PATH/,
  ],
  ["the system's folders only", SYSTEM_PATH, 'in_workspace', undefined],
] as const) {
  const forged = said !== undefined;
  test(`${name}: ${forged ? 'the reward is marked forgeable, naming the folder' : 'the planted program is not run'}`, async () => {
    const json = await graded(task, PLANT, await imageFrom(`FROM ${BASE_IMAGE}\nENV PATH=${path}\n`));
    const warnings = json.trace.warnings;
    if (forged) {
      // The SDK's behaviour is kept: the grader ran the agent's python3.
      assert.equal(json.reward, 1);
      assert.equal(json.forgeable, true);
      assert.ok(
        warnings.some((w) => said.test(w)),
        warnings.join('\n'),
      );
    } else {
      assert.equal(json.reward, 0);
      assert.equal(json.forgeable, false);
      assert.ok(!warnings.some((w) => w.includes('forgeable')), warnings.join('\n'));
    }
  });
}

// The image's own SDK serves with the image's PYTHONPATH, which here holds a folder of the workspace: the agent
// plants the module the grader imports when it grades. The SDK's behaviour is kept; the reward is marked.
test("the image's own SDK with a workspace folder on its PYTHONPATH: the reward is marked forgeable", async () => {
  const image = await imageFrom(`FROM ${peerSdkImage()}\nRUN mkdir -p /workspace/lib\nENV PYTHONPATH=/workspace/lib\n`);
  const plant = [
    `printf 'class SequenceMatcher:\\n    def __init__(self, *a): pass\\n    def ratio(self): return 1.0\\n' > /workspace/lib/difflib.py`,
    'echo wrong',
  ].join(' && ');
  const json = await graded('similar_task', plant, image, true);
  const trace = json.trace;
  assert.equal(trace.phases[0]?.substrate?.sdk?.source, 'image');
  assert.equal(json.reward, 1, "the grader imported the agent's difflib, as under the SDK");
  assert.equal(json.forgeable, true);
  assert.ok(
    trace.warnings.some((w) =>
      /^the reward is forgeable: the agent's user could put programs .*"\/workspace\/lib"/.test(w),
    ),
    trace.warnings.join('\n'),
  );
});
