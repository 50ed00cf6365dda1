/**
 * The module-level assignments: `name = value` (and `a = b = value`),
 * `target.verifier = value`, `del a, b`, read once each into what the
 * index keeps: environments, task candidates, verifier assignments, and
 * the values of names it may be asked about later (knownValues.ts).
 */
import { parseCall, verifierValue } from './callFacts';
import { sequenceItems } from './displays';
import type { EnvironmentFacts } from './facts';
import { intern } from './intern';
import { constantInt, isTupleOfLiterals, noteKnownValue, passesOver, readingAt } from './knownValues';
import { literalArg } from './literalArg';
import {
  assignedValueAt,
  expressionEnd,
  hasStarred,
  identifierEnd,
  isName,
  isWordCode,
  keywordAt,
  matchAt,
  splitTopLevel,
  type Span,
} from './pyScan';
import { isHudName } from './pythonImports';
import { UNCOUNTED, type Ctx, type ParsedAssignment } from './pythonModule';
import type { Binds } from './rebinding';
import { literalString } from './syntax';
import { pushElements, shareCandidates, uniqueOthers } from './taskCandidates';

export const VERIFIER_TARGET = /([A-Za-z_]\w*)\s*(?:\[\s*(\d+)\s*\])?\s*\.\s*verifier\s*=(?!=)\s*/y;

/** `name = <rhs>` or `a = b = <rhs>`: the variables and where the right-hand side starts and ends. */
export function simpleAssignment(text: string, st: Span): { name: string; more?: string[]; rhs: Span } | undefined {
  let start = assignedValueAt(text, st.start);
  if (start < 0 || start > st.end) return undefined;
  const name = intern(text.slice(st.start, identifierEnd(text, st.start)));
  let more: string[] | undefined;
  while (mayBeTarget(text, start, st.end)) {
    const next = assignedValueAt(text, start);
    if (next < 0 || next > st.end) break;
    (more ??= []).push(intern(text.slice(start, identifierEnd(text, start))));
    start = next;
  }
  const rhs = { start, end: expressionEnd(text, start, st.end) };
  return more ? { name, more, rhs } : { name, rhs };
}

/** The names an assignment binds: one, or each target of `a = b = ...`. */
export const bindsOf = (a: { name: string; more?: string[] | undefined }): Binds =>
  a.more ? [a.name, ...a.more] : a.name;

/** Whether a name at `at` is followed by `=` or `:` (a chained target), without a regular expression for `f(...)`. */
function mayBeTarget(text: string, at: number, end: number): boolean {
  let i = at;
  while (i < end && isWordCode(text.charCodeAt(i))) i++;
  if (i === at) return false;
  while (i < end && (text[i] === ' ' || text[i] === '\t')) i++;
  return text[i] === '=' || text[i] === ':';
}

export function parseAssignment(ctx: Ctx, st: Span): ParsedAssignment | undefined {
  const { text } = ctx;
  const v = matchAt(VERIFIER_TARGET, text, st.start, st.end);
  if (v) {
    const start = st.start + v[0].length;
    const end = expressionEnd(text, start, st.end);
    const value = verifierValue(ctx, { start, end });
    if (!value) return undefined;
    return {
      kind: 'verifier',
      target: intern(v[1]!),
      ...(v[2] === undefined ? {} : { index: Number(v[2]) }),
      value,
      range: ctx.lines.rangeAt(st.start, end),
    };
  }
  const assign = simpleAssignment(text, st);
  if (!assign) return undefined;
  readingAt(st.start);
  const items = sequenceItems(text, assign.rhs);
  const { name, more, rhs } = assign;
  if (items) {
    if (!more && items !== UNCOUNTED && !hasStarred(text, items)) {
      const immutable = isTupleOfLiterals(text, rhs, items);
      noteKnownValue(name, { count: items.length, at: st.start, value: rhs, immutable });
    }
    return { kind: 'name', name, more, rhs, statement: st, items };
  }
  const call = parseCall(ctx, rhs);
  if (!call) {
    if (more) return undefined;
    const lit = literalArg(text, rhs);
    // `HALF = COUNT // 2`: an integer computed from known ones is as known.
    const int = lit ? (lit.kind === 'int' ? Number(lit.value) : undefined) : constantInt(rhs);
    if (int !== undefined) noteKnownValue(name, { int, at: st.start, immutable: true });
    return undefined;
  }
  const callee = !more && call.facts.callee.length === 1 ? call.facts.callee[0] : undefined;
  if (callee === 'range') {
    const count = passesOver(rhs);
    if (count !== undefined) noteKnownValue(name, { count, at: st.start, value: rhs, immutable: true });
  } else if (callee === 'len') {
    const int = constantInt(rhs);
    if (int !== undefined) noteKnownValue(name, { int, at: st.start, immutable: true });
  }
  return { kind: 'name', name, more, rhs, statement: st, call };
}

export function readEnvironment(ctx: Ctx, parsed: ParsedAssignment): EnvironmentFacts | undefined {
  if (
    parsed.kind !== 'name' ||
    !parsed.call ||
    !isHudName(parsed.call.facts.callee, ctx.hud, ctx.hud.environment, 'Environment')
  )
    return undefined;
  const args = parsed.call.args;
  const nameArg = args.find((a) => a.keyword === 'name') ?? args.find((a) => a.keyword === undefined && !a.splat);
  const name = nameArg ? literalString(ctx.text.slice(nameArg.value.start, nameArg.value.end)) : undefined;
  return {
    variable: parsed.name,
    name: name === undefined ? parsed.name : intern(name, true),
    range: ctx.lines.rangeAt(parsed.statement.start, parsed.rhs.end),
  };
}

export function readAssignment(ctx: Ctx, parsed: ParsedAssignment): void {
  const { text, facts } = ctx;
  if (parsed.kind === 'verifier') {
    const { kind: _kind, ...assignment } = parsed;
    facts.verifierAssignments.push(assignment);
    return;
  }
  if (parsed.more) {
    // Each target of `a = b = ...` is a task reference of its own (discovery lists both).
    const { more, ...rest } = parsed;
    const made = facts.tasks.length;
    readAssignment(ctx, { ...rest, more: undefined });
    const end = facts.tasks.length;
    // The other names hold the very object the first holds: its Task, or its list and so each element's Task.
    shareCandidates(facts, made, end, uniqueOthers(rest.name, more));
    return;
  }
  if (parsed.items) {
    pushElements(ctx, parsed.items, parsed.name);
    return;
  }
  const call = parsed.call;
  if (!call || isHudName(call.facts.callee, ctx.hud, ctx.hud.environment, 'Environment')) return;
  if (isHudName(call.facts.callee, ctx.hud, ctx.hud.taskset, 'Taskset')) {
    const list =
      call.args.find((a) => a.keyword === 'tasks') ?? call.args.filter((a) => a.keyword === undefined && !a.splat)[1];
    readingAt(parsed.statement.start);
    const listItems = list ? sequenceItems(text, list.value) : undefined;
    if (listItems) pushElements(ctx, listItems, parsed.name, true);
    return;
  }
  facts.tasks.push({
    name: parsed.name,
    call: call.facts,
    range: ctx.lines.rangeAt(parsed.statement.start, parsed.rhs.end),
  });
}

/**
 * The names `del a, b` unbinds at module level, when it names plain names
 * only: for the rebinding rules it binds them to nothing, so what they held
 * before is no task discovery finds.
 */
export function deletedNames(text: string, st: Span): string[] | undefined {
  if (!keywordAt(text, st.start, 'del')) return undefined;
  const end = expressionEnd(text, st.start, st.end);
  const items = splitTopLevel(text, st.start + 4, end);
  if (items.length === 0 || !items.every((item) => isName(text, item))) return undefined;
  return items.map((item) => text.slice(item.start, item.end));
}
