/**
 * What a golden row expects of a reward: an exact value, a range, or a
 * comparison such as `">= 0.5"` (docs/grader-workbench.md).
 */
import { z } from 'zod';

const TOLERANCE = 1e-6;

export const Expectation = z.union([
  z.number(),
  z.object({ min: z.number().optional(), max: z.number().optional() }).strict(),
  z.string().regex(/^\s*(==|!=|>=|<=|>|<)\s*-?\d+(\.\d+)?\s*$/, 'a comparison such as ">= 0.5"'),
]);
export type Expectation = z.infer<typeof Expectation>;

/** True when `value` satisfies `expect`; a missing reward satisfies nothing. */
export function satisfies(expect: Expectation, value: number | null): boolean {
  if (value === null) return false;
  if (typeof expect === 'number') return Math.abs(value - expect) <= TOLERANCE;
  if (typeof expect === 'object') {
    return (
      (expect.min === undefined || value >= expect.min - TOLERANCE) &&
      (expect.max === undefined || value <= expect.max + TOLERANCE)
    );
  }
  const m = /^\s*(==|!=|>=|<=|>|<)\s*(-?\d+(?:\.\d+)?)\s*$/.exec(expect);
  const op = m?.[1];
  const x = Number(m?.[2]);
  switch (op) {
    case '==':
      return Math.abs(value - x) <= TOLERANCE;
    case '!=':
      return Math.abs(value - x) > TOLERANCE;
    case '>=':
      return value >= x - TOLERANCE;
    case '<=':
      return value <= x + TOLERANCE;
    case '>':
      return value > x + TOLERANCE;
    case '<':
      return value < x - TOLERANCE;
    default:
      return false;
  }
}

export function describeExpectation(expect: Expectation): string {
  if (typeof expect === 'number') return `== ${expect}`;
  if (typeof expect === 'string') return expect.trim();
  if (expect.min !== undefined && expect.max !== undefined) return `in [${expect.min}, ${expect.max}]`;
  return expect.min !== undefined ? `>= ${expect.min}` : expect.max !== undefined ? `<= ${expect.max}` : 'anything';
}
