/**
 * Hostile inputs for the fuzz suite: every run uses the same seed (so a
 * failure reproduces) and a time bound (so `npm test` stays quick).
 * Another seed, by hand: `HUD_STUDIO_FUZZ_SEED=4 HUD_STUDIO_TEST_LAYER=unit
 * node --import tsx --test test/unit/fuzz/inputs.fuzz.test.ts`.
 */
import fc from 'fast-check';

/** The suite's seed; HUD_STUDIO_FUZZ_SEED runs it with another one, to look for inputs the usual seed never makes. */
export const SEED = Number(process.env['HUD_STUDIO_FUZZ_SEED'] ?? 20261130);

/** fast-check parameters: fixed seed, at most `runs` cases, stop after `seconds`. */
export function params(runs: number, seconds: number): fc.Parameters<unknown> {
  return {
    seed: SEED,
    numRuns: runs,
    interruptAfterTimeLimit: seconds * 1000,
    markInterruptAsFailure: false,
    endOnFailure: true,
  };
}

/** JSON text nested `depth` levels. */
export function nestedJson(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

/** Bytes that are not UTF-8, NUL, lone surrogates once decoded, and control characters. */
export const nastyBytes = fc.oneof(
  fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
  fc.constantFrom(
    Buffer.from([0xff, 0xfe]),
    Buffer.from([0xc3]),
    Buffer.from([0xed, 0xa0, 0x80]),
    Buffer.from([0]),
    Buffer.from('\x1b[2J'),
  ),
);

/**
 * A variation of `seed`: truncated at any point, bytes spliced in, a value
 * replaced by a wrong type, deep nesting or a huge string.
 */
export function mutated(seed: string): fc.Arbitrary<Buffer> {
  const base = Buffer.from(seed, 'utf8');
  return fc.oneof(
    fc.nat({ max: base.length }).map((n) => base.subarray(0, n)),
    fc
      .tuple(fc.nat({ max: base.length }), nastyBytes)
      .map(([at, junk]) => Buffer.concat([base.subarray(0, at), junk, base.subarray(at)])),
    fc
      .tuple(fc.nat({ max: base.length }), fc.nat({ max: 64 }))
      .map(([at, n]) => Buffer.concat([base.subarray(0, at), base.subarray(Math.min(base.length, at + n))])),
    fc
      .tuple(
        fc.nat({ max: base.length }),
        fc.constantFrom(
          nestedJson(5000),
          '"' + 'x'.repeat(200_000) + '"',
          'null',
          '1e999',
          'NaN',
          '[]',
          '{}',
          '-0',
          '"\\ud800"',
        ),
      )
      .map(([at, junk]) => Buffer.concat([base.subarray(0, at), Buffer.from(junk), base.subarray(at)])),
  );
}

/**
 * What a half-typed Python line holds: an open or stray bracket, a quote, a
 * decorator, a colon, a keyword, a form feed. Each scanner of the index
 * must step past such a place or stop; one that stays on it never ends.
 */
const PYTHON_JUNK = [
  '[',
  '(',
  '{',
  ')',
  ']',
  '}',
  '"',
  "'",
  '"""',
  '\\',
  '@',
  ':',
  '=',
  '#',
  '\t',
  'f"{',
  '[\n',
  '(\n@x',
  'def ',
  'for x in ',
  '.verifier = ',
  '\x0c',
  '\r',
];

/** `source` with one to three pieces of PYTHON_JUNK put in anywhere. */
export function halfTyped(source: string): fc.Arbitrary<string> {
  const insertion = fc.tuple(fc.nat({ max: source.length }), fc.constantFrom(...PYTHON_JUNK));
  return fc.array(insertion, { minLength: 1, maxLength: 3 }).map((edits) =>
    edits.reduce((text, [at, junk]) => {
      const i = Math.min(at, text.length);
      return text.slice(0, i) + junk + text.slice(i);
    }, source),
  );
}

/** Arbitrary JSON values, including wrong types for every field a schema expects. */
export const anyJson = fc.jsonValue({ maxDepth: 6 });
