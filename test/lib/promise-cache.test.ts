import { describe, expect, it } from "vitest";
import { PromiseCache } from "../../src/lib/promise-cache";

describe("PromiseCache", () => {
  it("makes each key's work once while it is kept", async () => {
    const cache = new PromiseCache<number>(4);
    let made = 0;
    const make = async () => ++made;
    expect(await cache.get("a", make)).toBe(1);
    expect(await cache.get("a", make)).toBe(1);
    expect(await cache.get("b", make)).toBe(2);
    expect(made).toBe(2);
  });

  it("keeps at most max entries, dropping the oldest first", async () => {
    const cache = new PromiseCache<string>(2);
    let made = 0;
    const make = (key: string) => async () => `${key}${++made}`;
    await cache.get("a", make("a"));
    await cache.get("b", make("b"));
    await cache.get("c", make("c"));
    expect(await cache.get("b", make("b"))).toBe("b2");
    expect(await cache.get("a", make("a"))).toBe("a4");
  });

  it("forgets a failure, so the next call tries again", async () => {
    const cache = new PromiseCache<string>(4);
    await expect(cache.get("k", async () => Promise.reject(new Error("no")))).rejects.toThrow("no");
    expect(await cache.get("k", async () => "yes")).toBe("yes");
    expect(await cache.get("k", async () => "again")).toBe("yes");
  });
});
