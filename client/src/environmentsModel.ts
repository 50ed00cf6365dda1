/**
 * The Environments view's model: environment -> templates -> tasks, from the
 * language server's index, with each task's verifier link and last reward.
 * Harbor tasks get a group of their own.
 */
import type { IndexedTask, IndexedTemplate, WorkspaceIndex } from '../../common/lspMessages';
import { type ShownOutcome, inlineText, verdictIcon } from './outcome';
import { type NodeView, outcomeKey } from './runsModel';
import { findTask } from './taskLookup';

/**
 * A row of the view. Templates and tasks carry their file: the same
 * environment and template id, or the same task reference, may stand in two
 * files (a copy of a module, two folders of a multi-root workspace that each
 * hold an `env.py`), and VS Code refuses two rows with one id.
 */
export type EnvNode =
  | { kind: 'environment'; env: string }
  | { kind: 'template'; env: string; templateId: string; uri: string }
  | { kind: 'task'; ref: string; uri: string }
  /** The task's verifier link; opens the verifier's template. */
  | { kind: 'verifier'; ref: string; uri: string }
  | { kind: 'group'; group: 'harbor' | 'other' };

export class EnvironmentsModel {
  private index: WorkspaceIndex = { version: 0, environments: [], templates: [], tasks: [] };
  /** By outcomeKey (./runsModel.ts). */
  private outcomes = new Map<string, ShownOutcome>();

  /** `traceDirOf`: the trace folder of a task file's workspace folder (hudStudio.traceFolder). */
  constructor(
    private readonly relativePath: (uri: string) => string,
    private readonly traceDirOf: (uri: string) => string | undefined = () => undefined,
  ) {}

  setIndex(index: WorkspaceIndex): void {
    this.index = index;
  }
  /** hudStudio.passThreshold, so a task's icon is the Testing view's verdict. */
  threshold = 1;

  setOutcomes(outcomes: Map<string, ShownOutcome>): void {
    this.outcomes = outcomes;
  }

  isEmpty(): boolean {
    return this.index.environments.length === 0 && this.index.templates.length === 0 && this.index.tasks.length === 0;
  }

  task(ref: string, uri?: string): IndexedTask | undefined {
    return findTask(this.index.tasks, ref, uri);
  }

  /** The template `env`/`templateId`; in the file `uri` when there are several. */
  template(env: string, templateId: string, uri?: string): IndexedTemplate | undefined {
    const all = this.templatesNamed(env, templateId);
    return all.find((t) => t.uri === uri) ?? all[0];
  }

  /** Every template `env`/`templateId`: more than one when several files define it. */
  private templatesNamed(env: string, templateId: string): IndexedTemplate[] {
    return this.index.templates.filter((t) => t.env === env && t.id === templateId);
  }

  /** The task's last run in its own folder, or one that wrote no trace. */
  private lastOutcome(ref: string, uri: string): ShownOutcome | undefined {
    return this.outcomes.get(outcomeKey(ref, this.traceDirOf(uri))) ?? this.outcomes.get(outcomeKey(ref, undefined));
  }

  private envNames(): string[] {
    const names = new Set<string>();
    for (const e of this.index.environments) names.add(e.name);
    for (const t of this.index.templates) names.add(t.env);
    return [...names].sort((a, b) => a.localeCompare(b));
  }

  private hasTemplate(t: IndexedTask): boolean {
    return t.kind === 'hud' && !!t.env && !!t.templateId && !!this.template(t.env, t.templateId);
  }

  children(node?: EnvNode): EnvNode[] {
    if (!node) {
      const out: EnvNode[] = this.envNames().map((env) => ({ kind: 'environment', env }));
      if (this.index.tasks.some((t) => t.kind === 'harbor')) out.push({ kind: 'group', group: 'harbor' });
      if (this.index.tasks.some((t) => t.kind === 'hud' && !this.hasTemplate(t)))
        out.push({ kind: 'group', group: 'other' });
      return out;
    }
    switch (node.kind) {
      case 'environment':
        return this.index.templates
          .filter((t) => t.env === node.env)
          .map((t) => ({ kind: 'template', env: node.env, templateId: t.id, uri: t.uri }));
      case 'template': {
        // A task whose template is known in several files is under the one it resolved to.
        const several = this.templatesNamed(node.env, node.templateId).length > 1;
        return this.index.tasks
          .filter(
            (t) =>
              t.kind === 'hud' &&
              t.env === node.env &&
              t.templateId === node.templateId &&
              (!several || t.templateUri === node.uri),
          )
          .map((t) => ({ kind: 'task', ref: t.ref, uri: t.uri }));
      }
      case 'group':
        return this.index.tasks
          .filter((t) => (node.group === 'harbor' ? t.kind === 'harbor' : t.kind === 'hud' && !this.hasTemplate(t)))
          .map((t) => ({ kind: 'task', ref: t.ref, uri: t.uri }));
      case 'task':
        return this.task(node.ref, node.uri)?.verifier ? [{ kind: 'verifier', ref: node.ref, uri: node.uri }] : [];
      case 'verifier':
        return [];
    }
  }

  /** The location a node opens (Open button, click). */
  location(node: EnvNode): { uri: string; line: number } | undefined {
    switch (node.kind) {
      case 'environment': {
        const e = this.index.environments.find((x) => x.name === node.env);
        return e && { uri: e.uri, line: e.range.start.line };
      }
      case 'template': {
        const t = this.template(node.env, node.templateId, node.uri);
        return t && { uri: t.uri, line: t.range.start.line };
      }
      case 'task': {
        const t = this.task(node.ref, node.uri);
        return t && { uri: t.uri, line: t.range.start.line };
      }
      case 'verifier': {
        const v = this.task(node.ref, node.uri)?.verifier;
        if (!v) return undefined;
        const t = this.template(v.env, v.templateId);
        return t ? { uri: t.uri, line: t.range.start.line } : { uri: v.uri, line: v.range.start.line };
      }
      case 'group':
        return undefined;
    }
  }

  view(node: EnvNode): NodeView {
    switch (node.kind) {
      case 'environment': {
        const files = [
          ...new Set(this.index.environments.filter((e) => e.name === node.env).map((e) => this.relativePath(e.uri))),
        ];
        const n = this.index.templates.filter((t) => t.env === node.env).length;
        return {
          id: `env:${node.env}`,
          label: node.env,
          description: files.join(', '),
          tooltip: `Environment "${node.env}" · ${n} template${n === 1 ? '' : 's'}\n${files.join('\n')}`,
          icon: { id: 'server-environment' },
          contextValue: 'hudEnvironment',
          collapsible: 'expanded',
        };
      }
      case 'template': {
        const t = this.template(node.env, node.templateId, node.uri);
        const tasks = this.children(node).length;
        // Two rows of one template (two files define it) say which file each is.
        const several = this.templatesNamed(node.env, node.templateId).length > 1;
        const desc = [
          several ? this.relativePath(node.uri) : undefined,
          t?.agentless ? 'agent-less' : undefined,
          `${tasks} task${tasks === 1 ? '' : 's'}`,
        ]
          .filter(Boolean)
          .join(' · ');
        return {
          id: `tpl:${node.env}:${node.templateId}:${node.uri}`,
          label: node.templateId,
          description: desc,
          tooltip:
            [t?.description, t?.promptPreview ? `prompt: ${t.promptPreview}` : undefined].filter(Boolean).join('\n') ||
            node.templateId,
          icon: { id: 'symbol-method' },
          contextValue: 'hudTemplate',
          collapsible: tasks ? 'expanded' : 'none',
        };
      }
      case 'task': {
        const t = this.task(node.ref, node.uri);
        const outcome = this.lastOutcome(node.ref, node.uri);
        const verifier = t?.verifier ? `→ ${t.verifier.env}/${t.verifier.templateId}` : undefined;
        const mode = t?.environmentMode ? `verifier ${t.environmentMode}` : undefined;
        const desc = [verifier, mode, outcome ? inlineText(outcome) : undefined].filter(Boolean).join(' · ');
        return {
          id: `task:${node.uri}:${node.ref}`,
          label: t?.label ?? node.ref,
          description: desc,
          tooltip: [
            node.ref,
            t?.verifier
              ? `verifier: ${t.verifier.env}/${t.verifier.templateId}${t.verifier.sameEnvironment ? ' (same environment: shares the actor substrate)' : ''}`
              : undefined,
            outcome ? `last run: ${inlineText(outcome)}` : 'not run yet',
          ]
            .filter(Boolean)
            .join('\n'),
          icon: outcome ? verdictIcon(outcome, this.threshold) : { id: t?.kind === 'harbor' ? 'package' : 'beaker' },
          contextValue: t?.verifier ? 'hudTask.verifier' : 'hudTask',
          collapsible: t?.verifier ? 'collapsed' : 'none',
        };
      }
      case 'verifier': {
        const v = this.task(node.ref, node.uri)?.verifier;
        const shared = v?.sameEnvironment ?? false;
        return {
          id: `verifier:${node.uri}:${node.ref}`,
          label: `verifier ${v?.env ?? '?'}/${v?.templateId ?? '?'}`,
          description: shared
            ? 'same environment: shares the actor substrate'
            : 'separate environment: fresh substrate',
          tooltip: shared
            ? "The verifier runs on the actor's substrate and control channel: whatever the verifier receives, the actor could see."
            : "The actor's substrate is torn down first; only the actor's result reaches the verifier.",
          icon: shared ? { id: 'warning', color: 'list.warningForeground' } : { id: 'verified' },
          contextValue: 'hudVerifier',
          collapsible: 'none',
        };
      }
      case 'group': {
        const n = this.children(node).length;
        return {
          id: `group:${node.group}`,
          label: node.group === 'harbor' ? 'Harbor tasks' : 'Other tasks',
          description: `${n}`,
          tooltip:
            node.group === 'harbor'
              ? 'Harbor task directories (task.toml)'
              : 'Tasks whose template is not found in the workspace',
          icon: { id: node.group === 'harbor' ? 'package' : 'question' },
          contextValue: 'hudGroup',
          collapsible: 'expanded',
        };
      }
    }
  }
}
