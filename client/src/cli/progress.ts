/** The eval progress bar: redrawn in place on a terminal, one line per finished run otherwise. */
import type { JobProgress } from '../engine/job';
import type { CliStream } from './io';

export function progressReporter(out: CliStream): { update(p: JobProgress): void; done(): void } {
  let last = -1;
  let drawn = false;
  return {
    update(p) {
      if (out.isTTY) {
        const width = Math.max(10, Math.min(40, (out.columns ?? 80) - 50));
        const filled = p.total ? Math.round((p.done / p.total) * width) : width;
        out.write(
          `\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${p.done}/${p.total}  running ${p.running}  passed ${p.passed}  errors ${p.errored}\x1b[K`,
        );
        drawn = true;
      } else if (p.done !== last) {
        last = p.done;
        out.write(`${p.done}/${p.total} done (running ${p.running}, passed ${p.passed}, errors ${p.errored})\n`);
      }
    },
    done() {
      if (drawn) out.write('\n');
    },
  };
}
