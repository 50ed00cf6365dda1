/**
 * Tests reach the language server through one harness,
 * test/unit/server/lspClient.ts: a test that starts the server process or
 * opens a JSON-RPC connection of its own would grow a third copy of the
 * waiting, shutdown and typing rules that the harness keeps in one place.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const root = join(__dirname, '..', '..', '..');
const HARNESS = 'test/unit/server/lspClient.ts';

/** What only a language client of its own would write. */
const OWN_CLIENT = [
  /\bcreateMessageConnection\b/,
  /\bStreamMessageReader\b/,
  /['"`]textDocument\/[A-Za-z]+['"`]/,
  /dist['"`], ['"`]server\.js|dist\/server\.js['"`]\]/,
  /['"`]server['"`], ['"`]src['"`], ['"`]server\.ts/,
];

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'fixtures') yield* sources(path);
    } else if (entry.name.endsWith('.ts')) yield path;
  }
}

test('no test but the harness starts the language server or speaks LSP itself', () => {
  const offenders: string[] = [];
  let harnessSeen = false;
  for (const path of sources(join(root, 'test'))) {
    const rel = relative(root, path).split('\\').join('/');
    const text = readFileSync(path, 'utf8');
    if (rel === HARNESS) {
      harnessSeen = OWN_CLIENT.slice(0, 2).every((re) => re.test(text));
      continue;
    }
    for (const re of OWN_CLIENT) if (re.test(text)) offenders.push(`${rel}: ${re.source}`);
  }
  assert.ok(harnessSeen, `${HARNESS} is where the connection is made`);
  assert.deepEqual(offenders, [], 'use startServer() from test/unit/server/lspClient.ts');
});
