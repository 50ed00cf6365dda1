/** What linking one file against the rest of the workspace produces. */
import type { IndexedGoldenRow, IndexedTask, IndexedTemplate, Range } from '../../../common/lspMessages';
import type { FileProblem, TemplateFacts } from './facts';

/** A call site that names a template: drives go-to-definition and references. */
export interface TemplateUse {
  range: Range;
  role: 'task' | 'verifier';
  templatePath: string;
  env: string;
  templateId: string;
}

export interface LinkResult {
  templates: IndexedTemplate[];
  tasks: IndexedTask[];
  problems: FileProblem[];
  uses: TemplateUse[];
  /** Rows of a golden answer file. */
  golden?: IndexedGoldenRow[];
}

/** Templates by environment name and id, across the workspace (sorted by path). */
export interface TemplateRegistry {
  /** Templates with this environment name and id; records the lookup as a dependency. */
  find(env: string, id: string): { path: string; template: TemplateFacts }[];
}

export const EMPTY_LINK: LinkResult = { templates: [], tasks: [], problems: [], uses: [] };

/** Keys the wire result frame may carry whatever the template yields (docs/hud-protocol.md). */
export const WIRE_RESULT_KEYS = new Set(['score', 'subscores', 'info', 'content', 'isError', 'done']);
