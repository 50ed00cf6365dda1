import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDotenv } from '../../../client/src/dotenv';
import { HudStudioError } from '../../../client/src/engine/errors';

describe('.env files', () => {
  test('keys, comments, export, quotes and escapes', () => {
    const text = [
      '\uFEFF# judge credentials',
      '',
      'HUD_API_KEY=sk-123  # inline comment',
      'export HUD_GATEWAY_URL = http://127.0.0.1:9/v1',
      "SINGLE='a # not a comment \\n'",
      'DOUBLE="line1\\nline2 \\"q\\""',
      'EMPTY=',
      'HASH=a#b',
    ].join('\r\n');
    assert.deepEqual(parseDotenv(text, '.env.judge'), {
      HUD_API_KEY: 'sk-123',
      HUD_GATEWAY_URL: 'http://127.0.0.1:9/v1',
      SINGLE: 'a # not a comment \\n',
      DOUBLE: 'line1\nline2 "q"',
      EMPTY: '',
      HASH: 'a#b',
    });
  });

  test('a bad line names the file and line and how to fix it', () => {
    assert.throws(
      () => parseDotenv('A=1\nthis is not valid\n', '/ws/.env'),
      (err: unknown) => {
        assert.ok(err instanceof HudStudioError);
        assert.equal(err.location?.file, '/ws/.env');
        assert.equal(err.location?.line, 2);
        assert.match(
          err.describe(),
          /^\/ws\/\.env:2: not a KEY=value line: "this is not valid" \(fix: write NAME=value/,
        );
        return true;
      },
    );
    assert.throws(() => parseDotenv('1BAD=x', 'f'), /not a KEY=value line/);
    assert.throws(
      () => parseDotenv('A="open', 'f'),
      (e: unknown) => e instanceof HudStudioError && /unterminated " quote/.test(e.message) && e.location?.line === 1,
    );
  });
});
