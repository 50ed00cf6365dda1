/**
 * The slice of the `vscode` API that client/src/ui/testing.ts and the
 * pickers (pickRollout.ts, pickTemplate.ts) touch, recording what the
 * Testing API is told and what the window is asked to show, so the real
 * code runs in a unit test. Only what those use; anything else is absent on
 * purpose, so a new use shows up as a failing test rather than a silent no-op.
 */
type Listener = () => void;
const disposable = { dispose: (): void => undefined };

export class Uri {
  private constructor(private readonly text: string) {}
  static parse(text: string): Uri {
    return new Uri(text);
  }
  static file(path: string): Uri {
    return new Uri(`file://${path}`);
  }
  get fsPath(): string {
    return this.text.replace(/^file:\/\//, '');
  }
  toString(): string {
    return this.text;
  }
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(sl: number, sc: number, el: number, ec: number) {
    this.start = new Position(sl, sc);
    this.end = new Position(el, ec);
  }
}

export class Location {
  constructor(
    readonly uri: Uri,
    readonly range: Range,
  ) {}
}

export class TestMessage {
  location: Location | undefined;
  expectedOutput: string | undefined;
  actualOutput: string | undefined;
  constructor(readonly message: string) {}
  static diff(message: string, expected: string, actual: string): TestMessage {
    const m = new TestMessage(message);
    m.expectedOutput = expected;
    m.actualOutput = actual;
    return m;
  }
}

export enum TestRunProfileKind {
  Run = 1,
}

export class TestRunRequest {
  constructor(
    readonly include?: FakeItem[],
    readonly exclude?: FakeItem[],
  ) {}
}

export class FakeCollection {
  private readonly map = new Map<string, FakeItem>();
  constructor(private readonly parent?: FakeItem) {}
  get size(): number {
    return this.map.size;
  }
  get(id: string): FakeItem | undefined {
    return this.map.get(id);
  }
  replace(items: readonly FakeItem[]): void {
    this.map.clear();
    for (const i of items) {
      i.parent = this.parent;
      this.map.set(i.id, i);
    }
  }
  forEach(fn: (item: FakeItem) => void): void {
    this.map.forEach((i) => fn(i));
  }
}

export class FakeItem {
  parent: FakeItem | undefined;
  description = '';
  range: Range | undefined;
  readonly children: FakeCollection = new FakeCollection(this);
  constructor(
    readonly id: string,
    public label: string,
    readonly uri: Uri | undefined,
  ) {}
}

/** `file`: the item's file, which tells apart two folders' tasks of one reference (their ids). */
export type Verdict = { item: string; file: string | undefined; state: string; message?: TestMessage };

export class FakeRun {
  readonly verdicts: Verdict[] = [];
  ended = false;
  constructor(readonly name: string) {}
  enqueued(): void {}
  readonly startedItems: FakeItem[] = [];
  started(item: FakeItem): void {
    this.startedItems.push(item);
  }
  appendOutput(): void {}
  passed(item: FakeItem): void {
    this.verdicts.push({ item: item.id, file: item.uri?.toString(), state: 'passed' });
  }
  failed(item: FakeItem, message: TestMessage): void {
    this.verdicts.push({ item: item.id, file: item.uri?.toString(), state: 'failed', message });
  }
  errored(item: FakeItem, message: TestMessage): void {
    this.verdicts.push({ item: item.id, file: item.uri?.toString(), state: 'errored', message });
  }
  skipped(item: FakeItem): void {
    this.verdicts.push({ item: item.id, file: item.uri?.toString(), state: 'skipped' });
  }
  end(): void {
    this.ended = true;
  }
}

export interface FakeProfile {
  label: string;
  isDefault: boolean;
  run: (request: TestRunRequest, token: { onCancellationRequested: () => typeof disposable }) => Promise<void>;
  dispose(): void;
}

export class FakeController {
  readonly items = new FakeCollection();
  readonly runs: FakeRun[] = [];
  readonly profiles: FakeProfile[] = [];
  refreshHandler: Listener | undefined;
  createRunProfile(label: string, _kind: TestRunProfileKind, run: FakeProfile['run'], isDefault: boolean) {
    const p: FakeProfile = { label, isDefault, run, dispose: () => undefined };
    this.profiles.push(p);
    return p;
  }
  createTestItem(id: string, label: string, uri?: Uri): FakeItem {
    return new FakeItem(id, label, uri);
  }
  createTestRun(_request: TestRunRequest, name: string): FakeRun {
    const run = new FakeRun(name);
    this.runs.push(run);
    return run;
  }
  dispose(): void {}
}

export const controllers: FakeController[] = [];

export const tests = {
  createTestController(): FakeController {
    const c = new FakeController();
    controllers.push(c);
    return c;
  },
};

export const workspace = {
  onDidChangeConfiguration: () => disposable,
  /** Every setting at its default. */
  getConfiguration: () => ({ get: (): undefined => undefined }),
};

/** What the window was asked to show; a test sets `pick` to choose among a quick pick's items. */
export const shown: {
  messages: string[];
  picks: { title: string | undefined; labels: string[] }[];
  pick: (items: readonly { label: string }[]) => { label: string } | undefined;
} = { messages: [], picks: [], pick: () => undefined };

export const window = {
  showWarningMessage: () => Promise.resolve(undefined),
  showInformationMessage: (message: string) => {
    shown.messages.push(message);
    return Promise.resolve(undefined);
  },
  showQuickPick: <T extends { label: string }>(items: readonly T[], options?: { title?: string }) => {
    shown.picks.push({ title: options?.title, labels: items.map((i) => i.label) });
    return Promise.resolve(shown.pick(items) as T | undefined);
  },
};

export const commands = {
  executeCommand: () => Promise.resolve(undefined),
};

/** No language models in the fake editor. */
export const lm = {
  onDidChangeChatModels: () => disposable,
  selectChatModels: () => Promise.resolve([]),
};
