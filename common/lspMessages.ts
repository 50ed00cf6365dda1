/**
 * Every custom message between the language server and the extension, in
 * one module both sides import: each is a typed `RequestType` /
 * `NotificationType`, passed as is to `sendRequest` / `onNotification` on
 * either side, so no call site names a method string or casts a result.
 * No `vscode` import, so the CLI and tests use it too.
 */
import { NotificationType, RequestType } from 'vscode-languageserver-protocol';

/** LSP positions: 0-based line, UTF-16 character offset. */
export interface Position {
  line: number;
  character: number;
}
export interface Range {
  start: Position;
  end: Position;
}

export interface TemplateParam {
  name: string;
  annotation?: string;
  /** Source text of the default, if any. */
  default?: string;
  kind: 'positional' | 'keyword' | 'varargs' | 'varkw';
}

export interface IndexedEnvironment {
  name: string;
  /** Python variable bound to `Environment("name")`. */
  variable: string;
  uri: string;
  range: Range;
}

export interface IndexedTemplate {
  id: string;
  /** Environment name (not the variable). */
  env: string;
  functionName: string;
  description: string;
  uri: string;
  /** The `def` line. */
  range: Range;
  /** Line of the grading (second) yield, where inline results are shown. */
  gradeYieldRange?: Range;
  params: readonly TemplateParam[];
  /** First-yield prompt text when it is a literal. */
  promptPreview?: string;
  /** True when the first yield is empty (`""`, `None`) - agent-less. */
  agentless: boolean;
  /** Keys of a literal dict in the second yield. */
  resultKeys: string[];
  /** Keys read from the value the first yield returns (e.g. actor_result["answer"]). */
  readsKeys: string[];
  /** Its definition holds a syntax error: the signature and what its body yields are the parser's guess. */
  broken?: true;
}

export interface IndexedVerifierLink {
  env: string;
  templateId: string;
  /** Where the verifier call is written. */
  uri: string;
  range: Range;
  /** Where the verifier's template is defined, when resolved. */
  templateUri?: string;
  sameEnvironment: boolean;
}

export interface IndexedTask {
  /** Task reference (docs/hud-protocol.md) with a workspace-relative POSIX path. */
  ref: string;
  kind: 'hud' | 'harbor';
  /** Display name: variable, `name[i]`, row number or Harbor task name. */
  label: string;
  uri: string;
  range: Range;
  /** hud: the template it calls, when resolved. */
  env?: string;
  templateId?: string;
  templateUri?: string;
  verifier?: IndexedVerifierLink;
  /** harbor: the verification mode. */
  environmentMode?: 'shared' | 'separate';
}

/** A row of a golden answer file (docs/grader-workbench.md). */
export interface IndexedGoldenRow {
  /** The golden file. */
  uri: string;
  /** The row on its line. */
  range: Range;
  /** The task selector the row names (`NAME`, `NAME[i]`, `N`). */
  task: string;
  /** The answer as JSON, shortened for labels. */
  answer: string;
  /** The reward expectation (`== 1`, `>= 0.5`). */
  expect: string;
  /** The task's reference, when the selector names a task of the env.py beside the file. */
  taskRef?: string;
  taskUri?: string;
}

export interface WorkspaceIndex {
  /** Increases on every change. */
  version: number;
  environments: IndexedEnvironment[];
  templates: IndexedTemplate[];
  tasks: IndexedTask[];
  /** Golden answer rows; absent from servers that predate them. */
  golden?: IndexedGoldenRow[];
}

export type IndexParams = Record<string, never>;

/** The whole workspace index (client -> server). */
export const IndexRequest = new RequestType<IndexParams, WorkspaceIndex, void>('hudStudio/index');

/** One indexed file's part of the index. */
export interface IndexFilePart {
  /** Identifies the file between requests. */
  key: string;
  /** Workspace-relative path: the index lists files in this order. */
  rel: string;
  environments: IndexedEnvironment[];
  templates: IndexedTemplate[];
  tasks: IndexedTask[];
  golden: IndexedGoldenRow[];
}

export interface IndexDeltaParams {
  /** The version of the index the client holds (0 for none). */
  since: number;
  /** The server's `epoch` the client's version came from; another one means start again. */
  epoch?: string;
}

/**
 * The files whose part changed since `since`, and the files gone: the whole
 * index is 28 MB of JSON at 11,000 environment files, and one edit changes
 * one file's part. `full`: every file is in `files` and the client starts
 * from nothing.
 */
export interface IndexDelta {
  version: number;
  epoch: string;
  full: boolean;
  files: IndexFilePart[];
  removed: string[];
}

/** What changed in the index since a version the client holds (client -> server). */
export const IndexDeltaRequest = new RequestType<IndexDeltaParams, IndexDelta, void>('hudStudio/indexDelta');

export interface IndexChangedParams {
  version: number;
}

/** Sent by the server whenever the index changed; the client then asks for it. */
export const IndexChangedNotification = new NotificationType<IndexChangedParams>('hudStudio/indexChanged');

/** Arguments of the CodeLens commands the server emits. */
export namespace Commands {
  export const runTask = 'hudStudio.runTask' as const;
  export const runTemplate = 'hudStudio.runTemplate' as const;
  export interface RunTaskArgs {
    ref: string;
    uri: string;
  }
  export interface RunTemplateArgs {
    uri: string;
    env: string;
    templateId: string;
  }
}
