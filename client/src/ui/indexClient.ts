/**
 * Starts the bundled language server and keeps the latest workspace index.
 * The server decides which files matter and registers the one file watcher
 * (dynamic `workspace/didChangeWatchedFiles`); a client-side watcher as well
 * would send every save twice. The client only asks for the index when the
 * server says it changed. Commands restart the server and show its log; a
 * server that keeps dying is stopped with a message saying so.
 */
import * as vscode from 'vscode';
import {
  CloseAction,
  type CloseHandlerResult,
  ErrorAction,
  type ErrorHandler,
  type ErrorHandlerResult,
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  TransportKind,
} from 'vscode-languageclient/node';
import type { ServerInitOptions } from '../../../server/src/initOptions';
import { SERVER_V8_FLAGS } from '../../../server/src/v8Flags';
import { IndexReplica } from '../../../common/indexParts';
import { IndexChangedNotification, IndexDeltaRequest, type WorkspaceIndex } from '../../../common/lspMessages';
import { ServerRestarts } from '../serverRestarts';

export const RESTART_SERVER_COMMAND = 'hudStudio.restartServer';
export const SHOW_SERVER_LOG_COMMAND = 'hudStudio.showServerLog';

const EMPTY: WorkspaceIndex = { version: 0, environments: [], templates: [], tasks: [] };

export class IndexClient implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private current: WorkspaceIndex = EMPTY;
  /** The server's index, kept up to date by deltas (common/indexParts.ts). */
  private readonly replica = new IndexReplica();
  private readonly emitter = new vscode.EventEmitter<WorkspaceIndex>();
  readonly onDidChange = this.emitter.event;
  private fetching: Promise<void> | undefined;
  private again = false;
  private readonly restarts = new ServerRestarts();

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {
    context.subscriptions.push(
      vscode.commands.registerCommand(RESTART_SERVER_COMMAND, () => this.restart()),
      vscode.commands.registerCommand(SHOW_SERVER_LOG_COMMAND, () => this.log.show(true)),
    );
  }

  get index(): WorkspaceIndex {
    return this.current;
  }

  async start(): Promise<void> {
    const module = this.context.asAbsolutePath('dist/server.js');
    const serverOptions: ServerOptions = {
      run: { module, transport: TransportKind.ipc, options: { execArgv: [...SERVER_V8_FLAGS] } },
      debug: {
        module,
        transport: TransportKind.ipc,
        options: { execArgv: [...SERVER_V8_FLAGS, '--nolazy', '--inspect=6019'] },
      },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: 'file', language: 'python' },
        { scheme: 'file', pattern: '**/task.toml' },
        { scheme: 'file', pattern: '**/docker-compose.{yaml,yml}' },
        { scheme: 'file', pattern: '**/*.{json,jsonl}' },
      ],
      outputChannel: this.log,
      errorHandler: this.errorHandler(),
      initializationOptions: { workspaceTrusted: vscode.workspace.isTrusted } satisfies ServerInitOptions,
    };
    this.client = new LanguageClient('hudStudio', 'HUD Studio Language Server', serverOptions, clientOptions);
    this.context.subscriptions.push(this.client.onNotification(IndexChangedNotification, () => void this.refresh()));
    await this.client.start();
    await this.refresh();
  }

  /** HUD Studio: Restart Language Server. Also brings back a server the error handler gave up on. */
  async restart(): Promise<void> {
    this.restarts.reset();
    const client = this.client;
    if (!client) return this.start();
    this.log.info('restarting the language server');
    try {
      if (client.isRunning()) await client.stop();
      await client.start();
      await this.refresh();
    } catch (err) {
      this.log.error(`the language server did not restart: ${(err as Error).message}`);
      void this.tellUser(`HUD Studio's language server did not restart: ${(err as Error).message}`);
    }
  }

  private errorHandler(): ErrorHandler {
    return {
      error: (error, _message, count): ErrorHandlerResult => {
        this.log.error(`language server connection error: ${error.message}`);
        // A few garbled messages are survivable; a stream of them means the connection is gone.
        return { action: (count ?? 1) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown, handled: true };
      },
      closed: (): CloseHandlerResult => {
        const verdict = this.restarts.closed();
        if (verdict.restart) {
          this.log.warn(verdict.log);
          return { action: CloseAction.Restart, handled: true };
        }
        this.log.error(verdict.message);
        void this.tellUser(verdict.message);
        return { action: CloseAction.DoNotRestart, handled: true };
      },
    };
  }

  private async tellUser(message: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(message, 'Show Server Log', 'Restart Language Server');
    if (choice === 'Show Server Log') this.log.show(true);
    if (choice === 'Restart Language Server') await this.restart();
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
          // Only the files that changed travel: the whole index is tens of MB in a large workspace.
          const delta = await this.client.sendRequest(IndexDeltaRequest, this.replica.next());
          const index = this.replica.apply(delta);
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
