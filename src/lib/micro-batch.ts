/**
 * Gathers the calls made in the same turn of the event loop, per key, into one call with a
 * list. The consumer runs many chunks at once; each asks its trigger's object and D1 in its
 * own words, and this turns their asks into one request per object and one D1 batch per phase.
 */
export class MicroBatcher<I, O> {
  private readonly open = new Map<string, { items: I[]; waiters: { resolve: (o: O) => void; reject: (e: unknown) => void }[] }>();

  constructor(private readonly send: (key: string, items: I[]) => Promise<O[]>) {}

  call(key: string, item: I): Promise<O> {
    let group = this.open.get(key);
    if (!group) {
      const created = { items: [] as I[], waiters: [] as { resolve: (o: O) => void; reject: (e: unknown) => void }[] };
      group = created;
      this.open.set(key, created);
      setTimeout(() => void this.flush(key, created), 0);
    }
    const target = group;
    return new Promise<O>((resolve, reject) => {
      target.items.push(item);
      target.waiters.push({ resolve, reject });
    });
  }

  private async flush(key: string, group: { items: I[]; waiters: { resolve: (o: O) => void; reject: (e: unknown) => void }[] }) {
    this.open.delete(key);
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
