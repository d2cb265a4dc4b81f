// `clarion translations pull` → `push` against an in-memory stand-in for the translation routes:
// the files pulled are nested JSON per locale, and pushing them back changes nothing.
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../scripts/cli/main.mjs";

/** The routes as the server answers them, over a map of locale → nested keys. */
function fakeServer(initial: Record<string, Record<string, unknown>>) {
  const locales = new Map(Object.entries(initial).map(([locale, keys]) => [locale, { keys, version: 1 }]));
  const calls: string[] = [];
  const json = (status: number, body: unknown, type = "application/json") =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": type } });
  const fetch = async (url: string | URL | Request, init?: RequestInit) => {
    const { pathname } = new URL(String(url));
    const method = init?.method ?? "GET";
    calls.push(`${method} ${pathname}`);
    if (pathname === "/v1/translations") return json(200, { defaultLocale: "en", data: [...locales.keys()].map((locale) => ({ locale })) });
    const locale = decodeURIComponent(pathname.split("/").at(-1)!);
    if (method === "GET") {
      const found = locales.get(locale);
      return found
        ? json(200, { locale, ...found })
        : json(404, { code: "translation_not_found", detail: "No." }, "application/problem+json");
    }
    const { keys } = JSON.parse(String(init?.body)) as { keys: Record<string, unknown> };
    if (locale === "en_US") {
      return json(
        422,
        { code: "validation_failed", detail: "Bad.", errors: [{ path: "locale", message: "A BCP 47 locale" }] },
        "application/problem+json",
      );
    }
    const before = locales.get(locale);
    const same = before && JSON.stringify(before.keys) === JSON.stringify(keys);
    const saved = { keys, version: same ? before.version : (before?.version ?? 0) + 1 };
    locales.set(locale, saved);
    return json(200, { locale, ...saved });
  };
  return { fetch: fetch as typeof globalThis.fetch, locales, calls };
}

async function clarion(args: string[], fetch: typeof globalThis.fetch) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, {
    env: { CLARION_URL: "http://clarion.test", CLARION_KEY: "ck_test" },
    fetch,
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

const EN = { welcome: { subject: "Welcome, {{ name }}" }, cart: { items: { one: "{{ count }} item", other: "{{ count }} items" } } };

describe("clarion translations", () => {
  it("pull writes one nested <locale>.json per locale, and push applies them back unchanged", async () => {
    const server = fakeServer({ en: EN, "de-CH": { welcome: { subject: "Grüezi" } } });
    const dir = await mkdtemp(join(tmpdir(), "clarion-translations-"));
    const pulled = await clarion(["translations", "pull", dir], server.fetch);
    expect(pulled).toMatchObject({ code: 0, out: expect.stringContaining("pulled 2 locale(s)") });
    expect((await readdir(dir)).sort()).toEqual(["de-CH.json", "en.json"]);
    expect(JSON.parse(await readFile(join(dir, "en.json"), "utf8"))).toEqual(EN);

    const pushed = await clarion(["translations", "push", dir], server.fetch);
    expect(pushed.code).toBe(0);
    expect(pushed.out.split("\n")).toEqual([
      `de-CH at version 1 (${join(dir, "de-CH.json")})`,
      `en at version 1 (${join(dir, "en.json")})`,
    ]);
    expect(server.calls.filter((c) => c.startsWith("PUT"))).toEqual(["PUT /v1/translations/de-CH", "PUT /v1/translations/en"]);
  });

  it("push sends an edited file as that locale's keys, and names the file the server refused", async () => {
    const server = fakeServer({});
    const dir = await mkdtemp(join(tmpdir(), "clarion-translations-"));
    await writeFile(join(dir, "fr.json"), JSON.stringify({ welcome: { subject: "Bienvenue" } }));
    expect((await clarion(["translations", "push", dir], server.fetch)).code).toBe(0);
    expect(server.locales.get("fr")?.keys).toEqual({ welcome: { subject: "Bienvenue" } });

    await writeFile(join(dir, "en_US.json"), "{}");
    const refused = await clarion(["translations", "push", dir], server.fetch);
    expect(refused.code).not.toBe(0);
    expect(refused.err).toContain(join(dir, "en_US.json"));
    expect(refused.err).toContain("locale: A BCP 47 locale");
  });

  it("needs exactly one folder", async () => {
    const { fetch } = fakeServer({});
    const res = await clarion(["translations", "pull"], fetch);
    expect(res.code).not.toBe(0);
    expect(res.err).toContain("clarion translations pull <folder>");
  });
});
