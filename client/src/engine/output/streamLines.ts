/**
 * Whole lines from a command's two output streams, for `ExecOptions.onOutput`:
 * chunks end anywhere, so each stream keeps its own unfinished line, and
 * `end()` hands on the last ones that had no newline.
 */
import { LineSplitter } from './lineSplitter';

export type OutputStream = 'stdout' | 'stderr';

export interface StreamLines {
  onOutput(stream: OutputStream, text: string): void;
  end(): void;
}

export function streamLines(onLine: (stream: OutputStream, line: string) => void): StreamLines {
  const splitters = {
    stdout: new LineSplitter((line) => onLine('stdout', line)),
    stderr: new LineSplitter((line) => onLine('stderr', line)),
  };
  return {
    onOutput: (stream, text) => splitters[stream].push(text),
    end: () => {
      splitters.stdout.end();
      splitters.stderr.end();
    },
  };
}
