/**
 * An isolate's cache of work answered by promise (a derived key, say): at most `max` entries,
 * the oldest dropped first, and a promise that rejects is dropped as it does, so the next call
 * tries again rather than meeting the old failure.
 */
export class PromiseCache<T> {
  private readonly entries = new Map<string, Promise<T>>();

  constructor(private readonly max: number) {}

  get(key: string, make: () => Promise<T>): Promise<T> {
    const known = this.entries.get(key);
    if (known) return known;
    const made = make();
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, made);
    made.catch(() => {
      if (this.entries.get(key) === made) this.entries.delete(key);
    });
    return made;
  }
}
