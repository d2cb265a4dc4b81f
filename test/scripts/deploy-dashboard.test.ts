// `npm run deploy:dashboard`: the dashboard built for Cloudflare Pages, against a fake wrangler,
// and once for real with --dry-run (a real build, nothing deployed).
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { deployDashboard, pagesProjectsFrom, pagesUrlFrom } from "../../scripts/deploy/dashboard.mjs";
import { STATE_FILE } from "../../scripts/deploy/deploy.mjs";
import type { WranglerResult } from "../../scripts/deploy/wrangler.mjs";

const ROOT = resolve(import.meta.dirname, "../..");

function fakePages(projects: string[] = []) {
  const calls: string[] = [];
  const wrangler = async (args: string[]): Promise<WranglerResult> => {
    calls.push(args.join(" "));
    if (args[1] === "project" && args[2] === "list") {
      return {
        ok: true,
        stdout: JSON.stringify(projects.map((name) => ({ "Project Name": name, "Project Domains": `${name}.pages.dev` }))),
      };
    }
    if (args[1] === "project" && args[2] === "create") return { ok: true, stdout: "✨ Successfully created the project" };
    if (args[1] === "deploy")
      return { ok: true, stdout: "✨ Deployment complete! Take a peek over at https://1a2b3c4d.clarion-dashboard.pages.dev" };
    throw new Error(`unexpected wrangler ${args.join(" ")}`);
  };
  return { calls, wrangler };
}

async function run(fake: ReturnType<typeof fakePages>, options: { dryRun?: boolean; apiUrl?: string } = {}, state: string | null = null) {
  const log: string[] = [];
  const builds: Record<string, string>[] = [];
  const result = await deployDashboard({
    wrangler: fake.wrangler,
    options: {
      dryRun: options.dryRun ?? false,
      apiUrl: options.apiUrl,
      project: "clarion-dashboard",
      branch: "main",
      outDir: "dashboard/dist-pages",
    },
    read: (path) => (path === STATE_FILE ? state : null),
    list: () => ["_headers", "assets/index-abc.js", "index.html"],
    build: async (env) => void builds.push(env),
    log: (line) => log.push(line),
  });
  return { result, log: log.join("\n"), builds };
}

describe("npm run deploy:dashboard", () => {
  it("builds with the API's address at the root path, creates the Pages project when missing, and deploys", async () => {
    const fake = fakePages();
    const { builds, log, result } = await run(fake, { apiUrl: "https://clarion.acme.com/" });
    expect(builds).toEqual([{ VITE_API_URL: "https://clarion.acme.com", DASHBOARD_BASE: "/", DASHBOARD_OUT_DIR: "dashboard/dist-pages" }]);
    expect(fake.calls).toEqual([
      "pages project list --json",
      "pages project create clarion-dashboard --production-branch main",
      "pages deploy dashboard/dist-pages --project-name clarion-dashboard --branch main --commit-dirty=true",
    ]);
    expect(result.url).toBe("https://1a2b3c4d.clarion-dashboard.pages.dev");
    expect(log).toContain('DASHBOARD_ORIGINS = "https://clarion-dashboard.pages.dev"');
  });

  it("deploys to an existing project without creating it again", async () => {
    const fake = fakePages(["clarion-dashboard"]);
    await run(fake, { apiUrl: "https://clarion.acme.com" });
    expect(fake.calls.some((c) => c.includes("project create"))).toBe(false);
  });

  it("takes the address npm run deploy remembered when --api-url is not given", async () => {
    const { builds } = await run(fakePages(), {}, JSON.stringify({ url: "https://clarion.acme.workers.dev", databaseId: "x" }));
    expect(builds[0]?.VITE_API_URL).toBe("https://clarion.acme.workers.dev");
  });

  it.each([
    ["no address at all", undefined],
    ["an address that is no URL", "clarion.acme.com"],
  ])("stops before building with %s", async (_, apiUrl) => {
    const fake = fakePages();
    await expect(run(fake, { apiUrl })).rejects.toThrow(/--api-url/);
    expect(fake.calls).toEqual([]);
  });

  it("with --dry-run builds and lists what it would upload, calling no wrangler", async () => {
    const fake = fakePages();
    const { builds, log } = await run(fake, { apiUrl: "https://clarion.acme.com", dryRun: true });
    expect(builds).toHaveLength(1);
    expect(fake.calls).toEqual([]);
    expect(log).toContain("assets/index-abc.js");
    expect(log).toContain("wrangler pages deploy dashboard/dist-pages --project-name clarion-dashboard");
  });
});

describe("reading wrangler pages' output", () => {
  it("lists project names from --json, past a banner", () => {
    expect(pagesProjectsFrom(`⛅️ wrangler\n[{"Project Name":"a"},{"Project Name":"b"}]`)).toEqual(["a", "b"]);
  });
  it("finds the deployment's pages.dev address", () => {
    expect(pagesUrlFrom("Take a peek over at https://abc.x.pages.dev")).toBe("https://abc.x.pages.dev");
  });
});

describe("npm run deploy:dashboard -- --dry-run, for real", () => {
  const out = mkdtempSync(join(tmpdir(), "clarion-pages-"));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("builds a dashboard at / that calls the API's origin, allowed by its Content-Security-Policy", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["scripts/deploy-dashboard.mjs", "--dry-run", "--api-url", "https://clarion.acme.com"],
      {
        cwd: ROOT,
        env: { ...process.env, DASHBOARD_OUT_DIR: out, PATH: `${join(ROOT, "node_modules/.bin")}:${process.env.PATH}` },
      },
    );
    expect(stdout).toContain("--dry-run: nothing deployed");
    expect(stdout).toContain("index.html");
    const headers = readFileSync(join(out, "_headers"), "utf8");
    expect(headers).toMatch(/connect-src 'self' https:\/\/clarion\.acme\.com;/);
    expect(headers).toContain("frame-ancestors 'none'");
    expect(readFileSync(join(out, "index.html"), "utf8")).toMatch(/src="\/assets\/index-[^"]+\.js"/);
    // On its own origin no Worker serves /favicon.svg: the build carries it.
    expect(readFileSync(join(out, "index.html"), "utf8")).toContain('<link rel="icon" type="image/svg+xml" href="/favicon.svg" />');
    expect(readFileSync(join(out, "favicon.svg"), "utf8")).toMatch(/^<svg /);
    // Each page is a chunk of its own: the address is baked into whichever holds the API client.
    const code = readdirSync(join(out, "assets"))
      .filter((f) => f.endsWith(".js"))
      .map((f) => readFileSync(join(out, "assets", f), "utf8"))
      .join("\n");
    expect(code).toContain("https://clarion.acme.com");
    // React's production build, though vitest runs the script with NODE_ENV=test.
    expect(code).not.toContain("jsxDEV");
  }, 180_000);
});
