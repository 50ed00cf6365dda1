/**
 * Runs the CLI in a process of its own and reports what it cost: wall time
 * and peak resident memory (the kernel's high-water mark, read at exit), so
 * that the fault suite can hold the engine to bounded memory and linear time.
 *
 *   node --import tsx measuredCli.ts ARGS...   -> last stderr line: HUD_MEASURE {"code","ms","maxRssMb"}
 */
import { main } from '../../../client/src/cli/main';

const started = performance.now();
main(process.argv.slice(2), {
  stdout: { write: (t: string) => void process.stdout.write(t) },
  stderr: { write: (t: string) => void process.stderr.write(t) },
  cwd: process.cwd(),
  env: process.env,
}).then(
  (code) => {
    const ms = Math.round(performance.now() - started);
    const maxRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
    process.stderr.write(`\nHUD_MEASURE ${JSON.stringify({ code, ms, maxRssMb })}\n`);
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`measuredCli: ${String(err)}\n`);
    process.exitCode = 99;
  },
);
