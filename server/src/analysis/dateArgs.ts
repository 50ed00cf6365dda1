/**
 * Whether a text literal converts to a `date`, `datetime` or `time`
 * parameter the way the SDK's pydantic reads it (docs/sdk-compatibility.md,
 * "Dates and times"). Only what is certain from the text is judged: a
 * string outside pydantic's grammar, a boolean or None. Numbers and text
 * that is a number are Unix timestamps whose verdict hangs on arithmetic
 * (a `date` takes only exact midnights), so they are not judged.
 */
import type { TypeMismatch } from './argTypes';
import type { LiteralArg } from './facts';

export type DateKind = 'date' | 'datetime' | 'time';

const KINDS: ReadonlyMap<string, DateKind> = new Map([
  ['date', 'date'],
  ['datetime.date', 'date'],
  ['datetime', 'datetime'],
  ['datetime.datetime', 'datetime'],
  ['time', 'time'],
  ['datetime.time', 'time'],
]);

const EXPECTED: Record<DateKind, string> = {
  date: 'a date (YYYY-MM-DD)',
  datetime: 'a datetime (YYYY-MM-DD[THH:MM[:SS]][Z|+HH:MM], or a Unix timestamp)',
  time: 'a time (HH:MM[:SS][Z|+HH:MM])',
};

const TIME = String.raw`(\d\d):(\d\d)(?::(\d\d)(?:[.,](\d+))?)?(?:[Zz]|[+-](\d\d):?(\d\d))?`;
const DATE_TEXT = new RegExp(String.raw`^(\d{4})-(\d\d)-(\d\d)(?:[Tt _]${TIME})?$`);
const TIME_TEXT = new RegExp(`^${TIME}$`);
/** Text pydantic reads as a timestamp, or that its JSON step reads as a number or a string. */
const NOT_JUDGED_TEXT = new RegExp(
  [
    String.raw`[+-]?(?:\d+|(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?)`,
    String.raw`\s*-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?\s*`,
    String.raw`\s*".*"\s*`,
  ]
    .map((alternative) => `^${alternative}$`)
    .join('|'),
  's',
);
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function dateKindOf(annotation: string): DateKind | undefined {
  return KINDS.get(annotation);
}

export function judgeDateLike(kind: DateKind, v: LiteralArg): 'ok' | 'unknown' | TypeMismatch {
  if (v.kind === 'int' || v.kind === 'float') return 'unknown';
  if (v.kind !== 'str') return { expected: EXPECTED[kind], choices: [] };
  if (kind === 'time') {
    const m = TIME_TEXT.exec(v.value);
    if (m && timeFits(m, 1)) return 'ok';
  } else {
    const m = DATE_TEXT.exec(v.value);
    if (m && calendarDay(m) && (m[4] === undefined || (timeFits(m, 4) && (kind === 'datetime' || midnight(m)))))
      return 'ok';
  }
  return NOT_JUDGED_TEXT.test(v.value) ? 'unknown' : { expected: EXPECTED[kind], choices: [] };
}

function calendarDay(m: RegExpExecArray): boolean {
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  return day <= DAYS_IN_MONTH[month - 1]! + (month === 2 && leap(year) ? 1 : 0);
}

function leap(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/** Hour, minute, second and offset in range; `at` is the index of the hour's group. */
function timeFits(m: RegExpExecArray, at: number): boolean {
  const [hour, minute, second] = [Number(m[at]), Number(m[at + 1]), Number(m[at + 2] ?? 0)];
  const [offHour, offMinute] = [Number(m[at + 4] ?? 0), Number(m[at + 5] ?? 0)];
  return hour <= 23 && minute <= 59 && second <= 59 && offHour <= 23 && offMinute <= 59;
}

function midnight(m: RegExpExecArray): boolean {
  return m[4] === '00' && m[5] === '00' && (m[6] ?? '00') === '00' && /^0*$/.test((m[7] ?? '').slice(0, 6));
}
