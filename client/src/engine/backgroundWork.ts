/**
 * Work a batch lets run behind it (removing a finished rollout's container
 * while the next one starts) and must wait for before it returns, so that
 * nothing it started outlives it. A failure is reported, never thrown: the
 * results it would delay are already in.
 */
export class BackgroundWork {
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly onError: (err: unknown) => void) {}

  add(work: Promise<void>): void {
    const held: Promise<void> = work.catch(this.onError).finally(() => this.pending.delete(held));
    this.pending.add(held);
  }

  /** Waits for everything added, including what is added while waiting. */
  async drain(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
  }
}
