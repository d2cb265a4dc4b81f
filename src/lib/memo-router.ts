import type { Result, Router } from "hono/router";
import { TrieRouter } from "hono/router/trie-router";

/** Paths whose match is kept; paths with ids in them are kept too, so past this many the least recently used goes. */
const MEMO_SIZE = 1_000;
/** A longer path is matched every time rather than kept (bounds what the memo holds). */
const MEMO_PATH_LENGTH = 256;

/**
 * Hono's trie router, with the matches of the (method, path) pairs used most recently kept. Hono's faster
 * RegExpRouter refuses this API (a static segment beside a parameter, `/v1/messages/stats` and
 * `/v1/messages/:id`), so the trie matched every request from scratch: about 7 % of the accept
 * path's CPU in `npm run bench:profile`. A match depends only on the method and the path, and Hono
 * only reads it (its own RegExpRouter shares one result between requests the same way).
 */
export class MemoRouter<T> implements Router<T> {
  readonly name = "MemoRouter";
  readonly #trie = new TrieRouter<T>();
  readonly #matches = new Map<string, Result<T>>();

  /** How many matches are kept. */
  get size(): number {
    return this.#matches.size;
  }

  add(method: string, path: string, handler: T): void {
    this.#matches.clear();
    this.#trie.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    const key = `${method} ${path}`;
    const known = this.#matches.get(key);
    if (known) {
      // Moved to the end (Maps iterate in insertion order), so paths with ids never push out a hot route.
      this.#matches.delete(key);
      this.#matches.set(key, known);
      return known;
    }
    const result = this.#trie.match(method, path);
    if (path.length <= MEMO_PATH_LENGTH) {
      if (this.#matches.size >= MEMO_SIZE) {
        // The first key is the least recently used.
        const oldest = this.#matches.keys().next().value;
        if (oldest !== undefined) this.#matches.delete(oldest);
      }
      this.#matches.set(key, result);
    }
    return result;
  }
}
