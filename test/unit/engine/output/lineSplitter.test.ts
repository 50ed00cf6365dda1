import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Demuxer } from '../../../../client/src/engine/docker/demux';
import { FrameTooLargeError, LineSplitter } from '../../../../client/src/engine/output/lineSplitter';
import { clipMiddle } from '../../../../client/src/engine/output/clip';

function collect(options = {}): { lines: [string, boolean][]; splitter: LineSplitter } {
  const lines: [string, boolean][] = [];
  return { lines, splitter: new LineSplitter((line, ended) => lines.push([line, ended]), options) };
}

test('lines split across chunks and multi-byte characters come out whole', () => {
  const { lines, splitter } = collect();
  const bytes = Buffer.from('héllo\r\nwörld\n€ last', 'utf8');
  for (let i = 0; i < bytes.length; i++) splitter.push(bytes.subarray(i, i + 1));
  splitter.end();
  assert.deepEqual(lines, [
    ['héllo', true],
    ['wörld', true],
    ['€ last', true],
  ]);
});

test('a final line without a newline is kept, an empty end adds nothing', () => {
  const { lines, splitter } = collect();
  splitter.push('a\nb');
  splitter.end();
  splitter.end();
  assert.deepEqual(lines, [
    ['a', true],
    ['b', true],
  ]);
});

test('an overlong line is handed on in pieces cut at character boundaries', () => {
  const { lines, splitter } = collect({ maxLineBytes: 10 });
  splitter.push('€€€€€€€€\n'); // 24 bytes
  const text = lines.map(([l]) => l).join('');
  assert.equal(text, '€€€€€€€€');
  assert.ok(lines.every(([l]) => Buffer.byteLength(l) <= 10 && !l.includes('\uFFFD')));
  assert.deepEqual(
    lines.map(([, e]) => e),
    [false, false, true],
  );
});

test('fail mode throws once the unfinished line passes the limit', () => {
  const { splitter } = collect({ maxLineBytes: 8, overlong: 'fail' });
  splitter.push('1234');
  assert.throws(() => splitter.push('56789'), FrameTooLargeError);
});

test('a 20 MB line without a newline is split in linear time', () => {
  let pieces = 0;
  let bytes = 0;
  const splitter = new LineSplitter((line) => ((pieces += 1), (bytes += line.length)));
  const chunk = Buffer.alloc(16 * 1024, 0x61);
  const started = performance.now();
  for (let i = 0; i < 1280; i++) splitter.push(chunk);
  splitter.end();
  const ms = performance.now() - started;
  assert.equal(bytes, 20 * 1024 * 1024);
  assert.equal(pieces, 20);
  // Quadratic joining took seconds here; linear work is a few tens of ms even on a loaded machine.
  assert.ok(ms < 2000, `took ${ms} ms`);
});

test('the Docker demuxer joins each frame once, whatever the chunking', () => {
  const frames: [string, string][] = [];
  const demux = new Demuxer((stream, payload) => frames.push([stream, payload.toString()]));
  const frame = (type: number, text: string): Buffer => {
    const header = Buffer.alloc(8);
    header[0] = type;
    header.writeUInt32BE(Buffer.byteLength(text), 4);
    return Buffer.concat([header, Buffer.from(text)]);
  };
  const all = Buffer.concat([frame(1, 'out'), frame(2, 'err'), frame(1, ''), frame(1, 'x'.repeat(100))]);
  for (let i = 0; i < all.length; i += 3) demux.push(all.subarray(i, i + 3));
  assert.deepEqual(frames, [
    ['stdout', 'out'],
    ['stderr', 'err'],
    ['stdout', 'x'.repeat(100)],
  ]);
  const big = Buffer.alloc(20 * 1024 * 1024, 0x62);
  const header = Buffer.alloc(8);
  header[0] = 1;
  header.writeUInt32BE(big.length, 4);
  let got = 0;
  const d2 = new Demuxer((_s, p) => (got += p.length));
  const started = performance.now();
  d2.push(header);
  for (let i = 0; i < big.length; i += 16 * 1024) d2.push(big.subarray(i, i + 16 * 1024));
  assert.equal(got, big.length);
  assert.ok(performance.now() - started < 2000);
});

test('clipMiddle keeps head and tail around a marked cut', () => {
  assert.equal(clipMiddle('short', 10), 'short');
  const clipped = clipMiddle('a'.repeat(50) + 'b'.repeat(50), 20);
  assert.match(clipped, /^a{10}\n\[hud-studio: cut 80 characters\]\nb{10}$/);
});
