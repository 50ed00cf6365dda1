/**
 * Two references to one task slug. The SDK keys a taskset by slug (the
 * template id, plus a hash of the arguments when there are any) and refuses
 * two tasks with the same one: a Taskset made with both fails the import,
 * and `hud eval` of the module (which gathers every task of its public
 * names) stops before running anything. HUD Studio runs each reference on
 * its own, so without this the SDK's failure would first show up outside
 * the editor. Only what is certain is reported: one Task object under two
 * references, or one template called with the same literal arguments.
 */
import type { TemplateParam } from '../../../common/lspMessages';
import { positionalParam } from './argsCheck';
import { problem } from './diagnostics';
import type { CallFacts, FileProblem, LiteralArg, TaskCandidate } from './facts';

/** A task the module lists, with what its slug is made of. */
export interface SluggedTask {
  candidate: TaskCandidate;
  label: string;
  /** The template's id, which starts the slug; undefined when the template is not known. */
  templateId: string | undefined;
  /** The template's parameters, which name positional arguments; undefined for `Task(...)`. */
  params: readonly TemplateParam[] | undefined;
}

/** Up to this many tasks, each is compared with every earlier one; past it, with those it may share a slug with. */
const COMPARE_ALL_UP_TO = 64;

export function duplicateSlugProblems(tasks: readonly SluggedTask[], out: FileProblem[]): void {
  // Only tasks of one Task object or of one template and literal arguments can meet. In a long module each is
  // compared with those alone: comparing every pair took seconds in a module of thousands of tasks.
  const groups = tasks.length > COMPARE_ALL_UP_TO ? new SlugGroups() : undefined;
  for (let j = 0; j < tasks.length; j++) {
    const b = tasks[j]!;
    const earlier = groups?.earlierThan(b, j);
    // A repeat inside one Taskset fails the import, which says more than what `hud eval` would do later.
    let inEval: { earlier: SluggedTask; same: boolean } | undefined;
    let inTaskset: { earlier: SluggedTask; same: boolean } | undefined;
    for (let c = 0; c < (earlier ? earlier.length : j); c++) {
      const a = tasks[earlier ? earlier[c]! : c]!;
      const same = a.candidate.call === b.candidate.call;
      if (!same && !sameTemplateCall(a, b)) continue;
      if (a.candidate.inTaskset && b.candidate.inTaskset && a.candidate.name === b.candidate.name)
        inTaskset = { earlier: a, same };
      // `hud eval` gathers public names only: `_draft` and a task it shares a slug with do not meet there.
      else if (!inEval && !a.candidate.name.startsWith('_') && !b.candidate.name.startsWith('_'))
        inEval = { earlier: a, same };
      if (inTaskset || (inEval && !b.candidate.inTaskset)) break;
    }
    const what = (m: { earlier: SluggedTask; same: boolean }) =>
      m.same ? `the same Task object as ${m.earlier.label}` : `the same template and arguments as ${m.earlier.label}`;
    if (inTaskset)
      out.push(
        problem(
          'taskset-duplicate-slug',
          b.candidate.range,
          `${b.label} is ${what(inTaskset)}, so the Taskset holds one slug twice and the import fails with ValueError "duplicate task slugs" (fix: leave one of them out, or give them different arguments)`,
        ),
      );
    else if (inEval)
      out.push(
        problem(
          'task-duplicate-slug',
          b.candidate.range,
          `${b.label} is ${what(inEval)}: one slug twice, so the SDK's \`hud eval\` of this file stops before running anything, with "duplicate task slugs" (HUD Studio runs each reference on its own) (fix: ${fixOf(b)})`,
        ),
      );
  }
}

/** The earlier tasks each task may share a slug with: of its Task object, or of its template and literal arguments. */
class SlugGroups {
  private readonly byCall = new Map<CallFacts, number[]>();
  private readonly byArgs = new Map<string, number[]>();

  /** The indices before `j` of tasks that may share `b`'s slug, ascending; `b` (task `j`) joins its groups. */
  earlierThan(b: SluggedTask, j: number): number[] {
    const key = slugKey(b);
    const ofCall = this.byCall.get(b.candidate.call);
    const ofArgs = key === undefined ? undefined : this.byArgs.get(key);
    const earlier = merged(ofCall ?? [], ofArgs ?? []);
    if (ofCall) ofCall.push(j);
    else this.byCall.set(b.candidate.call, [j]);
    if (key !== undefined) {
      if (ofArgs) ofArgs.push(j);
      else this.byArgs.set(key, [j]);
    }
    return earlier;
  }
}

/** Two ascending lists of indices as one, each index once. */
function merged(x: readonly number[], y: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let k = 0;
  while (i < x.length || k < y.length) {
    const next = k >= y.length || (i < x.length && x[i]! <= y[k]!) ? x[i]! : y[k]!;
    if (x[i] === next) i++;
    if (y[k] === next) k++;
    out.push(next);
  }
  return out;
}

/**
 * What two tasks share when sameTemplateCall holds of them: the template's
 * id and each argument's parameter and literal value, in parameter order;
 * undefined when their slug cannot be told from the text.
 */
function slugKey(t: SluggedTask): string | undefined {
  const call = t.candidate.call;
  if (t.templateId === undefined || !t.params || !literalOnly(call)) return undefined;
  const args: string[] = [];
  for (let k = 0; k < call.positional + call.keywords.length; k++) {
    const name = argName(call, t.params, k);
    const literal = argLiteral(call, k);
    if (name === undefined || !literal) return undefined;
    args.push(`${name}\u0000${literal.kind}\u0000${literal.value}`);
  }
  return `${t.templateId}\u0001${args.sort().join('\u0001')}`;
}

/** How to keep one reference of the two. */
function fixOf(b: SluggedTask): string {
  const name = b.candidate.name;
  // `hud eval` skips private names, and a deleted name is no reference at all.
  if (b.candidate.loopTarget)
    return `the loop leaves ${name} holding its last task: name it _${name}, or add \`del ${name}\` after the loop`;
  return 'keep one of the two references, e.g. name the task a list holds only through the list, or give them different arguments';
}

/** Both call one template with the same literal arguments, by parameter name. */
function sameTemplateCall(a: SluggedTask, b: SluggedTask): boolean {
  if (a.templateId === undefined || a.templateId !== b.templateId || !a.params || !b.params) return false;
  const x = a.candidate.call;
  const y = b.candidate.call;
  if (!literalOnly(x) || !literalOnly(y) || x.positional + x.keywords.length !== y.positional + y.keywords.length)
    return false;
  for (let k = 0; k < x.positional + x.keywords.length; k++) {
    const name = argName(x, a.params, k);
    if (name === undefined) return false;
    const there = argNamed(y, b.params, name);
    if (!there || there.kind !== argLiteral(x, k)!.kind || there.value !== argLiteral(x, k)!.value) return false;
  }
  return true;
}

/** No splat, and every argument a literal: what the slug's hash is taken of is known. */
function literalOnly(call: CallFacts): boolean {
  if (call.hasSplat || (call.positionalLiterals?.length ?? 0) !== call.positional) return false;
  for (const k of call.keywords) if (!k.literal) return false;
  return true;
}

/** The parameter the k-th argument binds (positionals first, then keywords); undefined past plain positionals. */
function argName(call: CallFacts, params: readonly TemplateParam[], k: number): string | undefined {
  return k >= call.positional ? call.keywords[k - call.positional]!.name : positionalParam(params, k)?.name;
}

function argLiteral(call: CallFacts, k: number): LiteralArg | undefined {
  if (k >= call.positional) return call.keywords[k - call.positional]!.literal;
  for (const p of call.positionalLiterals ?? []) if (p.index === k) return p.literal;
  return undefined;
}

function argNamed(call: CallFacts, params: readonly TemplateParam[], name: string): LiteralArg | undefined {
  for (let k = 0; k < call.positional + call.keywords.length; k++)
    if (argName(call, params, k) === name) return argLiteral(call, k);
  return undefined;
}
