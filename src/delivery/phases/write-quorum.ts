/**
 * The chunks of a consumer invocation on their way to a log write. A group commit of the
 * messages' writes waits for the chunks that were on their way when it opened, so that one call
 * per log shard carries them all.
 *
 * Why: a batch's chunks get their claims from several ledger shards, and the answers come back
 * at different moments. Each wave of chunks then sends, reports and writes. With a flush on the
 * next tick, the first wave wrote alone and the others wrote together after it: two or three
 * calls to every log shard for each batch of 250 triggers. Each call to a shard has a fixed cost
 * (its transaction, its rollup rows, the call itself), and locally every object shares one thread.
 *
 * A group waits at most `maxMs` (a slow provider does not hold the others' writes longer). It
 * waits only for chunks that were on their way when it opened: a chunk that starts later does not
 * hold it, so a stream of new chunks cannot hold a group until its timeout.
 */
export class WriteQuorum {
  private next = 0;
  private readonly onTheWay = new Set<number>();
  private readonly waits = new Set<{ pending: Set<number>; done: () => void }>();

  constructor(private readonly maxMs: number) {}

  /** A chunk starts a step that ends in a write: it holds the groups that open from now until it `arrived`. */
  enter(): number {
    const token = this.next++;
    this.onTheWay.add(token);
    return token;
  }

  /** The chunk is at its write, or left its step without one. Idempotent. */
  arrived(token: number): void {
    if (!this.onTheWay.delete(token)) return;
    for (const wait of this.waits) {
      wait.pending.delete(token);
      if (wait.pending.size === 0) wait.done();
    }
  }

  /** Resolves once every chunk on its way now has arrived, or after `maxMs`; never rejects. */
  gathered(): Promise<void> {
    if (this.onTheWay.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const wait = {
        pending: new Set(this.onTheWay),
        done: () => {
          clearTimeout(timer);
          this.waits.delete(wait);
          resolve();
        },
      };
      const timer = setTimeout(wait.done, this.maxMs);
      this.waits.add(wait);
    });
  }
}
