import { TrieRouter } from "hono/router/trie-router";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { MemoRouter } from "../../src/lib/memo-router";

const routes: [string, string][] = [
  ["ALL", "/v1/*"],
  ["GET", "/v1/messages/stats"],
  ["GET", "/v1/messages/:id"],
  ["POST", "/v1/trigger"],
  ["GET", "/v1/trigger/:transactionId"],
];

function both() {
  const memo = new MemoRouter<string>();
  const trie = new TrieRouter<string>();
  routes.forEach(([method, path], i) => {
    memo.add(method, path, `h${i}`);
    trie.add(method, path, `h${i}`);
  });
  return { memo, trie };
}

describe("MemoRouter", () => {
  it("answers what the trie answers, the first time and from memory, with each path's own parameters", () => {
    const { memo, trie } = both();
    for (const [method, path] of [
      ["GET", "/v1/messages/stats"],
      ["GET", "/v1/messages/msg_a"],
      ["GET", "/v1/messages/msg_b"],
      ["POST", "/v1/trigger"],
      ["DELETE", "/v1/trigger"],
      ["GET", "/nowhere"],
    ] as const) {
      const expected = trie.match(method, path);
      expect(memo.match(method, path)).toEqual(expected);
      expect(memo.match(method, path)).toEqual(expected);
    }
    const paramsOf = (path: string) => memo.match("GET", path)[0].find(([h]) => h === "h2")?.[1];
    expect([paramsOf("/v1/messages/msg_a"), paramsOf("/v1/messages/msg_b")]).toEqual([{ id: "msg_a" }, { id: "msg_b" }]);
  });

  it("keeps a bounded number of paths, the least recently used going first, and matches the rest again correctly", () => {
    const { memo, trie } = both();
    const hot = memo.match("POST", "/v1/trigger");
    for (let i = 0; i < 1_500; i++) {
      memo.match("GET", `/v1/messages/msg_${i}`);
      // A route used all along stays kept (the same result object), however many ids pass through.
      expect(memo.match("POST", "/v1/trigger")).toBe(hot);
    }
    expect(memo.size).toBe(1_000);
    expect(memo.match("GET", "/v1/messages/msg_0")).toEqual(trie.match("GET", "/v1/messages/msg_0"));
    const long = `/v1/messages/${"x".repeat(300)}`;
    expect(memo.match("GET", long)).toEqual(trie.match("GET", long));
    expect(memo.size).toBe(1_000);
    const kept = memo.size;
    memo.add("GET", "/v1/other", "h5");
    expect([kept, memo.size]).toEqual([1_000, 0]);
  });

  it("serves the app: a route added after a match is found (the memo forgets on add)", () => {
    const memo = new MemoRouter<string>();
    memo.add("GET", "/a/:id", "param");
    expect(memo.match("GET", "/a/b")[0]).toHaveLength(1);
    memo.add("GET", "/a/b", "static");
    expect(memo.match("GET", "/a/b")[0].map(([h]) => h)).toEqual(["param", "static"]);
    expect(createApp().router).toBeInstanceOf(MemoRouter);
  });
});
