/**
 * When the language server's connection closes unasked: restart it, unless it
 * keeps dying, then stop and tell the user (with the log and a manual
 * restart). No `vscode` import; ui/indexClient.ts wires it into the client's
 * error handler.
 */
export const MAX_RESTARTS = 4;
export const RESTART_WINDOW_MS = 3 * 60_000;

export type CloseVerdict = { restart: true; log: string } | { restart: false; message: string };

export class ServerRestarts {
  private readonly closes: number[] = [];

  constructor(
    private readonly clock: () => number = Date.now,
    private readonly max = MAX_RESTARTS,
    private readonly windowMs = RESTART_WINDOW_MS,
  ) {}

  /** Called each time the connection closed without a stop from us. */
  closed(): CloseVerdict {
    const now = this.clock();
    this.closes.push(now);
    while (this.closes.length && (this.closes[0] ?? now) <= now - this.windowMs) this.closes.shift();
    const n = this.closes.length;
    if (n <= this.max)
      return { restart: true, log: `the language server stopped unexpectedly; restarting it (${n} of ${this.max})` };
    const minutes = Math.round(this.windowMs / 60_000);
    return {
      restart: false,
      message:
        `HUD Studio's language server stopped ${n} times in ${minutes} minutes and was not restarted: ` +
        'diagnostics, CodeLens and the Environments view are stale. The server log says why.',
    };
  }

  /** A manual restart starts a fresh count. */
  reset(): void {
    this.closes.length = 0;
  }
}
