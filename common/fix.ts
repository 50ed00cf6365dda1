/**
 * What a person can change so that a failed run works. The engine names the
 * change; each front end words it in its own terms (the CLI as flags, the
 * editor as settings), so an editor message never tells anyone to pass a flag.
 */
export type Fix =
  /** Run on another runtime: the one named, or one that can run commands. */
  | { kind: 'runtime'; use: 'docker' | 'local' | 'docker-or-local' }
  /** Consent to mounting the Docker socket into a compose task's main service. */
  | { kind: 'allow-service-access' }
  /** Write traces somewhere writable. */
  | { kind: 'trace-dir' }
  /** The fixed agent needs its answer. */
  | { kind: 'agent-answer' }
  /** The command agent needs its command. */
  | { kind: 'agent-command' }
  /** Choose another image for Docker substrates. */
  | { kind: 'image' };

export type FixKind = Fix['kind'];
