import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createSandboxEnvironment, unique } from "../factories";
import { api } from "../request";

/** A seeded generator, so a failure names the case that reproduces it. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=%+/~é\u0000\u202e";

function fuzzString(next: () => number, max: number) {
  const length = Math.floor(next() * max);
  let out = "";
  for (let i = 0; i < length; i++) out += ALPHABET[Math.floor(next() * ALPHABET.length)];
  return out;
}

const CONTENT_TYPES = [
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "multipart/form-data",
  "application/json",
  "text/plain",
  "",
];

describe("the hosted pages under fuzzed tokens and form bodies", () => {
  it("never answer 5xx", async () => {
    const { key } = await createSandboxEnvironment();
    // A link per fuzzed case: one link's 20 requests a minute would otherwise turn the rest into 429s.
    const mint = async () => {
      const subscriberId = unique("s");
      await api(key, "POST", "/sub", { subscriberId, email: "f@example.com" });
      const link = await api<{ url: string }>(key, "POST", `/v1/subscribers/${subscriberId}/preference-link`);
      return new URL(link.body.url).pathname.slice(3);
    };
    const [valid, ...more] = await Promise.all(Array.from({ length: 16 }, mint));
    const [payload, mac] = valid!.split(".");

    const next = random(24);
    const tokens = [
      valid,
      `${payload}.`,
      `.${mac}`,
      `${btoa('["a","b"]').replaceAll("=", "")}.${mac}`,
      `${btoa("[1,2,3]").replaceAll("=", "")}.${mac}`,
      `${btoa("null").replaceAll("=", "")}.${mac}`,
      "A".repeat(5000),
      // The real link with fuzzed bodies, form nonces included.
      ...more,
      ...Array.from({ length: 40 }, () => encodeURIComponent(fuzzString(next, 120))),
    ];
    for (const [i, token] of tokens.entries()) {
      for (const prefix of ["/u/", "/p/"]) {
        const get = await SELF.fetch(`http://clarion.test${prefix}${token}`);
        expect(get.status, `GET ${prefix} case ${i}`).toBeLessThan(500);
        expect(get.status, `GET ${prefix} case ${i}`).not.toBe(429);
        const contentType = CONTENT_TYPES[Math.floor(next() * CONTENT_TYPES.length)]!;
        const post = await SELF.fetch(`http://clarion.test${prefix}${token}`, {
          method: "POST",
          headers: contentType ? { "content-type": contentType } : {},
          body: i % 3 === 0 ? "List-Unsubscribe=One-Click" : fuzzString(next, 300),
        });
        expect(post.status, `POST ${prefix} case ${i} (${contentType})`).toBeLessThan(500);
        expect(post.status, `POST ${prefix} case ${i} (${contentType})`).not.toBe(429);
      }
    }
  });
});
