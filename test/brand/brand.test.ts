import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createSandboxEnvironment, unique } from "../factories";
import { createWorkflow } from "../e2e/helpers";
import { auditLog } from "../audit/helpers";
import { api, expectProblem } from "../request";
import { strictApi } from "../strict-api";

const BRAND = {
  name: "Acme",
  logoUrl: "https://acme.example/logo.png",
  colors: { primary: "#aa0011", background: "#ffffff", text: "#111111", link: "#0000ee" },
  footer: "Acme Inc.",
  address: "1 Main St",
  socialLinks: [{ name: "Mastodon", url: "https://mastodon.social/@acme" }],
};

describe("GET /v1/brand", () => {
  it("answers the defaults at version 0 before any save", async () => {
    const { key } = await createSandboxEnvironment();
    const res = await api(key, "GET", "/v1/brand");
    expect(res.body).toMatchObject({ name: null, logoUrl: null, colors: { primary: "#1d4ed8" }, version: 0, updatedAt: null });
    expect(res.headers.get("etag")).toBe('"0"');
  });
});

describe("PUT /v1/brand", () => {
  it("saves versions, diffs and reverts them, and audits each change", async () => {
    const { key } = await createSandboxEnvironment();
    const first = await api(key, "PUT", "/v1/brand", BRAND);
    expect(first.body).toMatchObject({ ...BRAND, version: 1 });
    // Saving the same brand again is no new version.
    expect((await api(key, "PUT", "/v1/brand", BRAND)).body).toMatchObject({ version: 1 });
    const second = await api(key, "PUT", "/v1/brand", { ...BRAND, name: "Acme 2" });
    expect(second.body).toMatchObject({ version: 2 });
    expect((await api(key, "GET", "/v1/brand/diff")).body).toEqual({
      from: 1,
      to: 2,
      patch: [{ op: "replace", path: "/name", value: "Acme 2" }],
    });
    const reverted = await api(key, "POST", "/v1/brand/revert", { version: 1 });
    expect(reverted.body).toMatchObject({ name: "Acme", version: 3 });
    const versions = await api<{ data: { version: number; action: string }[] }>(key, "GET", "/v1/brand/versions");
    expect(versions.body.data.map((v) => [v.version, v.action])).toEqual([
      [3, "reverted"],
      [2, "updated"],
      [1, "created"],
    ]);
    expectProblem(await api(key, "GET", "/v1/brand/versions/9"), 404, "brand_version_not_found");
    const entries = (await auditLog(key, "resource=brand")).body.data;
    expect(entries.map((e) => e.action)).toEqual(["reverted", "updated", "created"]);
  });

  it("refuses a save from a stale read with 412", async () => {
    const { key } = await createSandboxEnvironment();
    await api(key, "PUT", "/v1/brand", BRAND);
    expectProblem(await api(key, "PUT", "/v1/brand", { ...BRAND, name: "B" }, { headers: { "if-match": '"0"' } }), 412, "brand_changed");
    expect((await api(key, "PUT", "/v1/brand", { ...BRAND, name: "B" }, { headers: { "if-match": '"1"' } })).status).toBe(200);
  });

  it.each([
    ["a javascript: logo", { ...BRAND, logoUrl: "javascript:alert(1)" }, "logoUrl"],
    ["a colour not as #rrggbb", { ...BRAND, colors: { ...BRAND.colors, primary: "red" } }, "colors.primary"],
    ["a missing colour", { ...BRAND, colors: { primary: "#000000" } }, "colors.background"],
    ["an unknown field", { ...BRAND, extra: 1 }, "(root)"],
  ])("refuses %s with 422 and its path", async (_what, body, path) => {
    const { key } = await createSandboxEnvironment();
    const problem = expectProblem(await api(key, "PUT", "/v1/brand", body), 422, "validation_failed");
    expect(problem.errors?.map((e) => e.path)).toContain(path);
  });
});

describe("http: URLs", () => {
  it.each([
    ["a logo", { ...BRAND, logoUrl: "http://acme.example/logo.png" }, "logoUrl"],
    ["a social link", { ...BRAND, socialLinks: [{ name: "x", url: "http://x.example" }] }, "socialLinks.0.url"],
  ])("are refused for %s where private destinations are not allowed, and taken where they are", async (_what, body, path) => {
    const { key } = await createSandboxEnvironment();
    const problem = expectProblem(await strictApi(key, "PUT", "/v1/brand", body), 422, "validation_failed");
    expect(problem.errors?.map((e) => e.path)).toEqual([path]);
    expect((await api(key, "PUT", "/v1/brand", body)).status).toBe(200);
  });
});

describe("the preference page's former branding route", () => {
  it("reads and writes the brand", async () => {
    const { key } = await createSandboxEnvironment();
    await api(key, "PUT", "/v1/brand", BRAND);
    const read = await api(key, "GET", "/v1/preference-links/settings");
    expect(read.body).toMatchObject({ brandName: "Acme", logoUrl: BRAND.logoUrl, accentColor: "#aa0011" });
    const patched = await api(key, "PATCH", "/v1/preference-links/settings", { brandName: "Renamed", accentColor: "#00aa00" });
    expect(patched.body).toMatchObject({ brandName: "Renamed", accentColor: "#00aa00" });
    expect((await api(key, "GET", "/v1/brand")).body).toMatchObject({
      name: "Renamed",
      colors: { ...BRAND.colors, primary: "#00aa00" },
      footer: "Acme Inc.",
      version: 2,
    });
  });

  it("keeps branding set before the brand kit, as the brand, until a brand is saved", async () => {
    const { id, key } = await createSandboxEnvironment();
    await api(key, "GET", "/v1/preference-links/settings");
    // Branding written by 0.x went to the settings row's own columns.
    await env.DB.prepare("UPDATE preference_link_settings SET brand_name = ?, accent_color = ? WHERE environment_id = ?")
      .bind("Old Co", "#123456", id)
      .run();
    expect((await api(key, "GET", "/v1/brand")).body).toMatchObject({
      name: "Old Co",
      colors: { primary: "#123456", link: "#123456" },
      version: 0,
    });
    expect((await api(key, "GET", "/v1/preference-links/settings")).body).toMatchObject({ brandName: "Old Co", accentColor: "#123456" });
  });
});

describe("the hosted pages", () => {
  it("show the brand's name, logo and primary colour", async () => {
    const { key } = await createSandboxEnvironment();
    await api(key, "PUT", "/v1/brand", BRAND);
    await createWorkflow(key, {
      key: unique("news").toLowerCase(),
      steps: [{ id: "m", type: "email", template: { subject: "S", text: "T" } }],
    });
    const subscriberId = unique("s");
    await api(key, "POST", "/sub", { subscriberId, email: "ada@example.com" });
    const link = await api<{ url: string }>(key, "POST", `/v1/subscribers/${subscriberId}/preference-link`);
    const html = await (await SELF.fetch(`http://clarion.test${new URL(link.body.url).pathname}`)).text();
    expect(html).toContain('<img class="logo" src="https://acme.example/logo.png" alt="Acme">');
    expect(html).toMatch(/<title>[^<]+ · Acme<\/title>/);
    expect(html).toContain("background:#aa0011");
  });
});
