import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ContainerError, copyFailed } from '../../../client/src/engine/docker/errors';

/** A daemon refusal as dockerode hands it over: the status, and the daemon's message in the error's text. */
function refusal(message: string, json: { message: string } | null = null): Error {
  return Object.assign(new Error(`(HTTP code 500) server error - ${message} `), { statusCode: 500, json });
}

test("a copy refused because of a mount under a linked folder names Docker's bug and the way around it", () => {
  // Both wordings of moby/moby#52653: Debian's 28.5.2+dfsg4 (measured here) and Docker 29.5.0 (its report).
  for (const message of ['mkdirat var/run: statat var/run: path escapes from parent', 'mkdirat var/run: file exists']) {
    for (const err of [refusal(message), refusal(message, { message })]) {
      const e = copyFailed('copying /logs/artifacts out of container 86a3ffb6d5c6', err);
      assert.ok(e instanceof ContainerError);
      assert.equal(e.cause, err);
      assert.match(e.message, /^copying \/logs\/artifacts out of container 86a3ffb6d5c6 failed: .*mkdirat var\/run/);
      assert.match(e.hint ?? '', /moby\/moby#52653/);
      assert.match(e.hint ?? '', /update Docker, or mount under the link's target \(\/run\/docker\.sock\)/);
      assert.match(e.describe(), /\(fix: this Docker daemon cannot copy files/);
    }
  }
});

test('any other refused copy says what the daemon said, with no guessed fix', () => {
  const e = copyFailed(
    'copying /app in container 86a3ffb6d5c6',
    refusal('Could not find the file /app in container x'),
  );
  assert.match(e.message, /failed: .*Could not find the file \/app/);
  assert.equal(e.hint, undefined);
});
