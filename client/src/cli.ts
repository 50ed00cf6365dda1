#!/usr/bin/env node
/** Entry point of the `hud-studio` command (bundled to dist/cli.js). */
import { main } from './cli/main';
import { processIO } from './cli/io';

/**
 * Exits once our output is flushed instead of waiting for the event loop to
 * drain: a library's idle keep-alive socket must not hold a finished command
 * open (every substrate is already released when main() resolves).
 */
function exitWith(code: number): void {
  let pending = 2;
  const done = (): void => {
    if (--pending === 0) process.exit(code);
  };
  process.stdout.write('', done);
  process.stderr.write('', done);
}

// Nobody reads our output any more (e.g. `hud-studio run ... | head`): cancel
// as Ctrl-C does, so every substrate is still released, instead of crashing.
let pipeClosed = false;
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE' || pipeClosed) return;
    pipeClosed = true;
    process.emit('SIGINT', 'SIGINT');
  });
}

main(process.argv.slice(2), processIO()).then(exitWith, (err: unknown) => {
  process.stderr.write(
    `hud-studio: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  exitWith(1);
});
