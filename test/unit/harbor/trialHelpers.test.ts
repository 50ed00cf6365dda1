import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyExcludes, artifactDestination, globToRegExp } from '../../../client/src/engine/harbor/artifacts';
import { planNetwork, withExtraHosts } from '../../../client/src/engine/harbor/network';
import { trialName } from '../../../client/src/engine/harbor/trialFolder';

test('network modes: public is bridge, no-network and empty allowlists have no network, allowlists with hosts go through the proxy', () => {
  assert.deepEqual(planNetwork('public', []), { docker: 'bridge', allowedHosts: [], compose: 'default' });
  assert.deepEqual(planNetwork('no-network', []), { docker: 'none', allowedHosts: [], compose: 'internal' });
  assert.deepEqual(planNetwork('allowlist', []), { docker: 'none', allowedHosts: [], compose: 'internal' });
  assert.deepEqual(planNetwork('allowlist', ['pypi.org', '*.github.com']), {
    docker: 'allowlist',
    allowedHosts: ['pypi.org', '*.github.com'],
    compose: 'internal',
  });
});

test("a run's extra hosts: a public policy stays public (and says so), any other becomes an allowlist of both", () => {
  const said: string[] = [];
  const say = (line: string) => said.push(line);
  assert.deepEqual(withExtraHosts({ mode: 'public', hosts: [] }, ['pypi.org'], '--allow-agent-host', say), {
    mode: 'public',
    hosts: [],
  });
  assert.match(said[0]!, /^--allow-agent-host pypi\.org ignored: the network policy is public/);
  assert.deepEqual(withExtraHosts({ mode: 'no-network', hosts: [] }, ['pypi.org'], '--allow-agent-host', say), {
    mode: 'allowlist',
    hosts: ['pypi.org'],
  });
  assert.deepEqual(
    withExtraHosts(
      { mode: 'allowlist', hosts: ['a.org', 'pypi.org'] },
      ['pypi.org', 'b.org'],
      '--allow-agent-host',
      say,
    ),
    { mode: 'allowlist', hosts: ['a.org', 'pypi.org', 'b.org'] },
  );
  const kept = { mode: 'no-network', hosts: [] } as const;
  assert.equal(withExtraHosts(kept, [], '--allow-agent-host', say), kept);
  assert.equal(said.length, 1);
});

test('artifact destinations default to the source path inside artifacts/ and never escape it', () => {
  assert.equal(
    artifactDestination({ source: '/app/out.txt', destination: undefined, exclude: [], service: 'main' }),
    'app/out.txt',
  );
  assert.equal(
    artifactDestination({ source: '/app/report', destination: 'report', exclude: [], service: 'main' }),
    'report',
  );
  assert.equal(
    artifactDestination({ source: '/app/x', destination: '../../etc/x', exclude: [], service: 'main' }),
    'etc/x',
  );
});

test('exclude globs: * within a segment, ** across, bare names match anywhere', () => {
  assert.ok(globToRegExp('*.tmp').test('a/b/c.tmp'));
  assert.ok(!globToRegExp('*.tmp').test('a/b/c.tmpx'));
  assert.ok(globToRegExp('cache/**').test('cache/a/b'));
  assert.ok(!globToRegExp('cache/*').test('cache/a/b'));
  assert.ok(globToRegExp('?.log').test('x/a.log'));
  const root = mkdtempSync(join(tmpdir(), 'hs-excl-'));
  mkdirSync(join(root, 'sub', '__pycache__'), { recursive: true });
  writeFileSync(join(root, 'keep.md'), '');
  writeFileSync(join(root, 'sub', 'drop.tmp'), '');
  writeFileSync(join(root, 'sub', '__pycache__', 'x.pyc'), '');
  assert.deepEqual(applyExcludes(root, ['*.tmp', '__pycache__']).sort(), ['sub/__pycache__', 'sub/drop.tmp']);
  assert.ok(existsSync(join(root, 'keep.md')));
});

test('trial folder names follow Harbor: short task name (32 characters at most) and a short id', () => {
  assert.equal(trialName('acme/hello world', 'abcdef01-2345-6789'), 'hello_world__abcdef0');
  assert.equal(trialName('x/' + 'a'.repeat(40), '1234567'), `${'a'.repeat(32)}__1234567`);
});
