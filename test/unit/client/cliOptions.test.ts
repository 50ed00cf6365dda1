import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COMMON_OPTIONS, parse, requestBase } from '../../../client/src/cli/options';
import { UsageError } from '../../../client/src/engine/errors';

function request(argv: string[]) {
  return requestBase(parse(argv, COMMON_OPTIONS).values, '/work', undefined);
}

test("--allow-environment-host and --allow-agent-host add hosts to a Harbor task's policies, as Harbor reads them", () => {
  assert.equal(request([]).extraHosts, undefined);
  assert.deepEqual(
    request([
      '--allow-agent-host',
      'PyPI.org.',
      '--allow-agent-host',
      '*.pythonhosted.org',
      '--allow-environment-host',
      'deb.debian.org',
    ]).extraHosts,
    { environment: ['deb.debian.org'], agent: ['pypi.org', '*.pythonhosted.org'] },
  );
  for (const bad of ['https://pypi.org', 'pypi.org:443', 'a*.b.org', '']) {
    assert.throws(
      () => request(['--allow-agent-host', bad]),
      (err: unknown) =>
        err instanceof UsageError &&
        err.message.startsWith(`--allow-agent-host "${bad}": `) &&
        /hostname/.test(err.hint ?? ''),
    );
  }
});
