import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
/** The CLI is its own process: setting up that process is allowed (none does today). */
const OWN_PROCESS = new Set(['client/src/cli.ts']);
const WRITE =
  /process\.env\[[^\]]*\]\s*=(?!=)|process\.env\.[A-Za-z_]\w*\s*=(?!=)|delete\s+process\.env|Object\.assign\(\s*process\.env/;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sources(path);
    return /\.(ts|mts|cts)$/.test(name) ? [path] : [];
  });
}

test('nothing in the extension host, the engine or the language server writes process.env', () => {
  const files = [...sources(join(ROOT, 'client', 'src')), ...sources(join(ROOT, 'server', 'src'))];
  assert.ok(files.length > 50, 'the scan found the sources');
  const writes = files
    .filter((f) => !OWN_PROCESS.has(relative(ROOT, f)))
    .flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .flatMap((line, i) => (WRITE.test(line) ? [`${relative(ROOT, f)}:${i + 1}: ${line.trim()}`] : [])),
    );
  assert.deepEqual(writes, []);
});

test('the scan recognises every form of a write', () => {
  for (const line of [
    "process.env['DOCKER_HOST'] = h;",
    'process.env.DOCKER_HOST = h;',
    "delete process.env['X'];",
    'Object.assign(process.env, x);',
  ]) {
    assert.match(line, WRITE, line);
  }
  assert.doesNotMatch("const h = process.env['DOCKER_HOST'] === 'x';", WRITE);
});
