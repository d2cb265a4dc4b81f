type Group<I, O> = { items: I[]; waiters: { resolve: (o: O) => void; reject: (e: unknown) => void }[] };

/**
 * Gathers the calls made in the same turn of the event loop, per key, into one call with a
 * list. The consumer runs many chunks at once; each asks its trigger's object and D1 in its
 * own words, and this turns their asks into one request per object and one D1 batch per phase.
 * With `serial`, a key has one call in flight at a time and the asks made meanwhile go out
 * together when it ends (group commit): chunks whose objects answer at different moments still
 * share their writes.
 */
export class MicroBatcher<I, O> {
  private readonly open = new Map<string, Group<I, O>>();
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(
    private readonly send: (key: string, items: I[]) => Promise<O[]>,
    private readonly serial = false,
    /** Awaited before a group goes: the asks made meanwhile join it (the delivery's write quorum). Must not reject. */
    private readonly gathered?: () => Promise<void>,
  ) {}

  call(key: string, item: I): Promise<O> {
    let group = this.open.get(key);
    if (!group) {
      const created: Group<I, O> = { items: [], waiters: [] };
      group = created;
      this.open.set(key, created);
      const start = () =>
        setTimeout(() => {
          if (this.gathered) void this.gathered().then(() => this.flush(key, created));
          else void this.flush(key, created);
        }, 0);
      const running = this.serial ? this.inFlight.get(key) : undefined;
      if (running) void running.then(start);
      else start();
    }
    const target = group;
    return new Promise<O>((resolve, reject) => {
      target.items.push(item);
      target.waiters.push({ resolve, reject });
    });
  }

  private async flush(key: string, group: Group<I, O>) {
    this.open.delete(key);
    const run = this.deliver(key, group);
    if (this.serial) {
      this.inFlight.set(key, run);
      void run.then(() => {
        if (this.inFlight.get(key) === run) this.inFlight.delete(key);
      });
    }
    await run;
  }

  /** Never rejects: a failure goes to the group's callers. */
  private async deliver(key: string, group: Group<I, O>) {
    try {
      const results = await this.send(key, group.items);
      group.waiters.forEach((w, i) => {
        w.resolve(results[i]!);
      });
    } catch (error) {
      for (const w of group.waiters) w.reject(error);
    }
  }
}
