/**
 * Starts the bundled language server and keeps the latest workspace index.
 * The server decides which files matter (activation stays cheap); the client
 * only asks for the index when the server says it changed.
 */
import * as vscode from 'vscode';
import { LanguageClient, type LanguageClientOptions, type ServerOptions, TransportKind } from 'vscode-languageclient/node';
import type { ServerInitOptions } from '../../../server/src/initOptions';
import { IndexChangedNotification, IndexRequest, type WorkspaceIndex } from '../../../server/src/protocol';

const EMPTY: WorkspaceIndex = { version: 0, environments: [], templates: [], tasks: [] };

export class IndexClient implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private current: WorkspaceIndex = EMPTY;
  private readonly emitter = new vscode.EventEmitter<WorkspaceIndex>();
  readonly onDidChange = this.emitter.event;
  private fetching: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  get index(): WorkspaceIndex {
    return this.current;
  }

  async start(): Promise<void> {
    const module = this.context.asAbsolutePath('dist/server.js');
    const serverOptions: ServerOptions = {
      run: { module, transport: TransportKind.ipc },
      debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6019'] } },
    };
    const watcher = vscode.workspace.createFileSystemWatcher('**/{*.py,task.toml,*.json,*.jsonl,Dockerfile,docker-compose.yaml,docker-compose.yml}');
    this.context.subscriptions.push(watcher);
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: 'file', language: 'python' },
        { scheme: 'file', pattern: '**/task.toml' },
        { scheme: 'file', pattern: '**/*.{json,jsonl}' },
      ],
      synchronize: { fileEvents: watcher },
      outputChannel: this.log,
      initializationOptions: { workspaceTrusted: vscode.workspace.isTrusted } satisfies ServerInitOptions,
    };
    this.client = new LanguageClient('hudStudio', 'HUD Studio Language Server', serverOptions, clientOptions);
    this.context.subscriptions.push(
      this.client.onNotification(IndexChangedNotification.method, () => void this.refresh()),
    );
    await this.client.start();
    await this.refresh();
  }

  /** Fetches the index; coalesces bursts of change notifications into one request at a time. */
  async refresh(): Promise<void> {
    if (this.fetching) {
      this.again = true;
      return this.fetching;
    }
    this.fetching = (async () => {
      do {
        this.again = false;
        if (!this.client) return;
        try {
          const index = await this.client.sendRequest<WorkspaceIndex>(IndexRequest.method, {});
          this.current = index;
          this.emitter.fire(index);
        } catch (err) {
          this.log.warn(`index request failed: ${(err as Error).message}`);
        }
      } while (this.again);
    })().finally(() => (this.fetching = undefined));
    return this.fetching;
  }

  /** Idempotent: called by deactivate and again by the subscriptions' disposal. */
  async dispose(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.emitter.dispose();
    if (client?.isRunning()) await client.stop();
  }
}
