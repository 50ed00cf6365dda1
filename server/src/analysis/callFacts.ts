/**
 * Calls as the module-level statements write them (`dotted.name(args)`):
 * their facts for the index, where each argument is, the fields of an
 * explicit `Task(...)`, and what a verifier written as a value is. A call
 * of one of the module's factories is the task the factory makes.
 */
import type { CallFacts, ExplicitTask, Range, VerifierValue } from './facts';
import { fitted } from './fitted';
import { intern, internDotted } from './intern';
import { literalArg } from './literalArg';
import {
  calleeEndAt,
  identifierEnd,
  keywordValueAt,
  matchBracket,
  scanTo,
  skipSpaces,
  splitTopLevel,
  type Span,
} from './pyScan';
import { isHudName } from './pythonImports';
import type { ArgSpan, Ctx, Factory, ParsedCall } from './pythonModule';
import { literalString } from './syntax';

/** A call written as `dotted.name(args)` spanning exactly `span`. */
export function parseCall(ctx: Ctx, span: Span): ParsedCall | undefined {
  const { text, lines } = ctx;
  const calleeEnd = calleeEndAt(text, span.start);
  if (calleeEnd < 0) return undefined;
  const open = skipSpaces(text, calleeEnd);
  if (open >= span.end) return undefined;
  const close = matchBracket(text, open, span.end);
  if (close !== span.end - 1) return undefined; // `f(x).g`, `f(x) + 1`: not a plain call
  const callee = internDotted(text.slice(span.start, calleeEnd));
  if (ctx.factories.size && callee.length === 1) {
    const factory = ctx.factories.get(callee[0]!);
    if (factory && factory.defined < span.start) return madeBy(factory, lines.rangeAt(span.start, span.end));
  }
  const facts: CallFacts = {
    callee,
    range: lines.rangeAt(span.start, span.end),
    calleeRange: lines.rangeAt(span.start, calleeEnd),
    positional: 0,
    keywords: [],
    hasSplat: false,
    closeParen: lines.positionAt(close),
  };
  const args: ArgSpan[] = [];
  for (const a of splitTopLevel(text, open + 1, close)) {
    if (text[a.start] === '*') {
      facts.hasSplat = true;
      args.push({ splat: true, span: a, value: a });
      continue;
    }
    const valueStart = keywordValueAt(text, a.start);
    if (valueStart >= 0 && valueStart <= a.end) {
      const value = { start: valueStart, end: a.end };
      const nameEnd = identifierEnd(text, a.start);
      const name = intern(text.slice(a.start, nameEnd));
      args.push({ keyword: name, splat: false, span: a, value });
      const range = lines.rangeAt(a.start, nameEnd);
      const literal = literalArg(text, value);
      // Every field in the literal: one added later goes to a separate property store.
      facts.keywords.push(
        literal ? { name, range, literal, valueRange: lines.rangeAt(value.start, value.end) } : { name, range },
      );
    } else {
      args.push({ splat: false, span: a, value: a });
      const literal = literalArg(text, a);
      if (literal)
        (facts.positionalLiterals ??= []).push({
          index: facts.positional,
          literal,
          range: lines.rangeAt(a.start, a.end),
        });
      facts.positional++;
    }
  }
  facts.keywords = fitted(facts.keywords);
  if (facts.positionalLiterals) facts.positionalLiterals = fitted(facts.positionalLiterals);
  if (ctx.hud.task.size || ctx.hud.modules.size) {
    const explicit = isHudName(callee, ctx.hud, ctx.hud.task, 'Task') ? explicitTask(ctx, args) : undefined;
    if (explicit) facts.explicit = explicit;
  }
  return { facts, args };
}

/** A call of `factory` at `range`: a task of its own, made as the factory's body makes it. */
function madeBy(factory: Factory, range: Range): ParsedCall {
  const facts: CallFacts = { ...factory.call.facts, range };
  if (factory.verifier) facts.verifier = factory.verifier;
  if (factory.used) facts.echo = true;
  factory.used = true;
  return { facts, args: factory.call.args };
}

/** The fields of `Task(...)` that say which template it runs; undefined unless env and id are literals. */
function explicitTask(ctx: Ctx, args: ArgSpan[]): ExplicitTask | undefined {
  const { text } = ctx;
  const field = (name: string) => args.find((a) => a.keyword === name)?.value;
  const literal = (span: Span | undefined) => (span ? literalString(text.slice(span.start, span.end)) : undefined);
  const env = literal(field('env'));
  const id = literal(field('id'));
  if (env === undefined || id === undefined) return undefined;
  const out: ExplicitTask = { env: intern(env, true), id: intern(id, true) };
  const argsSpan = field('args');
  const keys = argsSpan ? literalKeys(text, argsSpan) : [];
  if (keys) out.argKeys = keys;
  const verifierSpan = field('verifier');
  const verifier = verifierSpan && verifierValue(ctx, verifierSpan);
  if (verifier) out.verifier = verifier;
  return out;
}

/** The keys of a dict display whose keys are all string literals (`{"a": 1, 'b': x}`). */
function literalKeys(text: string, span: Span): string[] | undefined {
  if (text[span.start] !== '{' || matchBracket(text, span.start, span.end) !== span.end - 1) return undefined;
  const keys: string[] = [];
  for (const item of splitTopLevel(text, span.start + 1, span.end - 1)) {
    const colon = scanTo(text, item.start, item.end, ':');
    if (colon >= item.end) return undefined; // `**other`, or not a dict display
    const key = literalString(text.slice(item.start, colon).trim());
    if (key === undefined) return undefined;
    keys.push(intern(key));
  }
  return keys;
}

export function verifierValue(ctx: Ctx, span: Span): VerifierValue | undefined {
  const source = ctx.text.slice(span.start, span.end);
  if (source === 'None') return { kind: 'none', range: ctx.lines.rangeAt(span.start, span.end) };
  if (/^[A-Za-z_]\w*$/.test(source))
    return { kind: 'name', name: intern(source), range: ctx.lines.rangeAt(span.start, span.end) };
  const call = parseCall(ctx, span);
  return call ? { kind: 'call', call: call.facts, range: call.facts.range } : undefined;
}
