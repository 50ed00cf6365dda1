/**
 * Links a `.json` / `.jsonl` task file: each row names a template by
 * environment name and id. `run` loads a task file with the env.py of its
 * own folder, so a row binds only to templates defined in that folder (or
 * below it); one found only elsewhere is reported, not linked.
 */
import { dirname } from 'node:path';
import type { IndexedTask } from '../../../common/lspMessages';
import { checkArgs } from './argsCheck';
import type { FileProblem, JsonTaskFacts, Range, TemplateFacts } from './facts';
import { problem } from './diagnostics';
import type { LinkResult, TemplateRegistry, TemplateUse } from './link';
import type { FileIdentity } from './linkPython';
import { isUnder } from './paths';
import { checkVerifier, type TemplateSide } from './verifierChecks';

export function linkJson(file: FileIdentity, facts: JsonTaskFacts, registry: TemplateRegistry): LinkResult {
  const problems: FileProblem[] = [];
  const uses: TemplateUse[] = [];
  const tasks: IndexedTask[] = [];
  problems.push(...(facts.issues ?? []));
  const folder = dirname(file.path);
  /** The template this folder's environment provides; reports one that only another folder defines. */
  const own = (
    env: string,
    id: string,
    range: Range,
    what: string,
  ): { path: string; template: TemplateFacts } | undefined => {
    const found = registry.find(env, id);
    const mine = found.find((f) => isUnder(folder, f.path));
    const other = found[0];
    if (!mine && other) {
      problems.push(
        problem(
          'task-file-other-folder',
          range,
          `${what}: template "${id}" of environment "${env}" is defined in ${file.relOf(other.path)}, not beside this task file; run loads the env.py of the task file's own folder (fix: move the task file beside that env.py, or run it with --module ${file.relOf(other.path)})`,
        ),
      );
    }
    return mine;
  };
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
    const actor = own(row.env, row.id, row.range, `row ${row.row}`);
    let actorSide: TemplateSide | undefined;
    if (actor) {
      task.templateUri = file.uriOf(actor.path);
      actorSide = { template: actor.template, env: row.env, rel: file.relOf(actor.path), uri: file.uriOf(actor.path) };
      uses.push({ range: row.range, role: 'task', templatePath: actor.path, env: row.env, templateId: row.id });
      for (const p of checkArgs(actor.template, {
        positional: 0,
        keywords: Object.keys(row.args),
        hasSplat: false,
      })) {
        problems.push(problem('task-bad-args', row.argsRange, `row ${row.row}: ${p.message}`));
      }
    }
    if (row.verifier) {
      const v = own(row.verifier.env, row.verifier.id, row.verifier.range, `row ${row.row} verifier`);
      if (v) {
        uses.push({
          range: row.verifier.range,
          role: 'verifier',
          templatePath: v.path,
          env: row.verifier.env,
          templateId: row.verifier.id,
        });
        for (const p of checkArgs(v.template, {
          positional: 0,
          keywords: Object.keys(row.verifier.args),
          hasSplat: false,
        })) {
          problems.push(problem('task-bad-args', row.verifier.range, `row ${row.row} verifier: ${p.message}`));
        }
        problems.push(
          ...checkVerifier(
            actorSide,
            { template: v.template, env: row.verifier.env, rel: file.relOf(v.path), uri: file.uriOf(v.path) },
            row.verifier.range,
          ),
        );
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
        task.verifier = {
          env: row.verifier.env,
          templateId: row.verifier.id,
          uri: file.uri,
          range: row.verifier.range,
          sameEnvironment: row.verifier.env === row.env,
        };
      }
    }
    tasks.push(task);
  }
  return { templates: [], tasks, problems, uses };
}
