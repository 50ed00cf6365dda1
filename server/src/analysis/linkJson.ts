/**
 * Links a `.json` / `.jsonl` task file: each row names a template by
 * environment name and id, which is looked up across the workspace.
 */
import type { IndexedTask } from '../protocol';
import { checkArgs } from './argsCheck';
import type { FileProblem, JsonTaskFacts, TemplateFacts } from './facts';
import { problem } from './diagnostics';
import type { LinkResult, TemplateUse } from './link';
import type { FileIdentity } from './linkPython';
import { checkVerifier, type TemplateSide } from './verifierChecks';

export interface TemplateRegistry {
  /** Templates with this environment name and id; records the lookup as a dependency. */
  find(env: string, id: string): { path: string; template: TemplateFacts }[];
}

export function linkJson(file: FileIdentity, facts: JsonTaskFacts, registry: TemplateRegistry): LinkResult {
  const problems: FileProblem[] = [];
  const uses: TemplateUse[] = [];
  const tasks: IndexedTask[] = [];
  for (const row of facts.rows) {
    const task: IndexedTask = {
      ref: `${file.rel}::${row.row}`,
      kind: 'hud',
      label: `row ${row.row}: ${row.env}/${row.id}`,
      uri: file.uri,
      range: row.range,
      env: row.env,
      templateId: row.id,
    };
    const actor = registry.find(row.env, row.id)[0];
    let actorSide: TemplateSide | undefined;
    if (actor) {
      task.templateUri = file.uriOf(actor.path);
      actorSide = { template: actor.template, env: row.env, rel: file.relOf(actor.path), uri: file.uriOf(actor.path) };
      uses.push({ range: row.range, role: 'task', templatePath: actor.path, env: row.env, templateId: row.id });
      for (const p of checkArgs(actor.template.functionName, actor.template.params, { positional: 0, keywords: Object.keys(row.args), hasSplat: false })) {
        problems.push(problem('task-bad-args', row.argsRange, `row ${row.row}: ${p.message}`));
      }
    }
    if (row.verifier) {
      const v = registry.find(row.verifier.env, row.verifier.id)[0];
      if (v) {
        uses.push({ range: row.verifier.range, role: 'verifier', templatePath: v.path, env: row.verifier.env, templateId: row.verifier.id });
        for (const p of checkArgs(v.template.functionName, v.template.params, { positional: 0, keywords: Object.keys(row.verifier.args), hasSplat: false })) {
          problems.push(problem('task-bad-args', row.verifier.range, `row ${row.row} verifier: ${p.message}`));
        }
        problems.push(...checkVerifier(actorSide, { template: v.template, env: row.verifier.env, rel: file.relOf(v.path), uri: file.uriOf(v.path) }, row.verifier.range));
        task.verifier = {
          env: row.verifier.env,
          templateId: row.verifier.id,
          uri: file.uri,
          range: row.verifier.range,
          templateUri: file.uriOf(v.path),
          sameEnvironment: row.verifier.env === row.env,
        };
      } else {
        problems.push(
          problem(
            'verifier-unknown-template',
            row.verifier.range,
            `row ${row.row}: no template "${row.verifier.id}" in environment "${row.verifier.env}" in this workspace (fix: correct the verifier's env/id, or define @env.template(id="${row.verifier.id}"))`,
          ),
        );
        task.verifier = { env: row.verifier.env, templateId: row.verifier.id, uri: file.uri, range: row.verifier.range, sameEnvironment: row.verifier.env === row.env };
      }
    }
    tasks.push(task);
  }
  return { templates: [], tasks, problems, uses };
}
