/** What linking one file against the rest of the workspace produces. */
import type { IndexedGoldenRow, IndexedTask, IndexedTemplate, Range } from '../../../common/lspMessages';
import type { FileProblem } from './facts';

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

export const EMPTY_LINK: LinkResult = { templates: [], tasks: [], problems: [], uses: [] };

/** Keys the wire result frame may carry whatever the template yields (docs/hud-protocol.md). */
export const WIRE_RESULT_KEYS = new Set(['score', 'subscores', 'info', 'content', 'isError', 'done']);
