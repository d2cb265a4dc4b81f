// `npm run deploy:dashboard`: the dashboard alone, built for another origin and deployed to
// Cloudflare Pages. Every wrangler call goes through `wrangler` (faked in tests), the build
// through `build`.
import { STATE_FILE } from "./deploy.mjs";

/** Where the Pages build goes (git-ignored), apart from the Worker's own dashboard/dist. */
export const PAGES_OUT_DIR = "dashboard/dist-pages";

/**
 * @typedef {{ dryRun: boolean, apiUrl?: string, project: string, branch: string, outDir: string }} DashboardDeployOptions
 * @typedef {{
 *   wrangler: import("./wrangler.mjs").Wrangler,
 *   options: DashboardDeployOptions,
 *   read: (path: string) => string | null,
 *   list: (dir: string) => string[],
 *   build: (env: Record<string, string>) => Promise<void>,
 *   log: (line: string) => void,
 * }} DashboardDeployDeps
 */

/** An address's origin (what CORS compares), or null when it is no http(s) URL. */
export function originOf(url) {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.origin : null;
  } catch {
    return null;
  }
}

/** The API the dashboard will call: `--api-url`, else the address `npm run deploy` remembered. */
export function apiUrlFor(/** @type {DashboardDeployDeps} */ { options, read }) {
  if (options.apiUrl) return options.apiUrl.replace(/\/+$/, "");
  const state = JSON.parse(read(STATE_FILE) ?? "{}");
  if (typeof state.url === "string" && state.url) return state.url.replace(/\/+$/, "");
  throw new Error("no API address: pass --api-url https://clarion.example.com (or run `npm run deploy` first, which remembers it)");
}

/**
 * The project names of `wrangler pages project list --json`.
 * @param {string} stdout
 */
export function pagesProjectsFrom(stdout) {
  const list = JSON.parse(stdout.slice(stdout.indexOf("[")));
  if (!Array.isArray(list)) throw new Error("wrangler pages project list --json did not print a list");
  return list.map((project) => String(project["Project Name"] ?? project.name));
}

/**
 * The address `wrangler pages deploy` reports; the project's own `<project>.pages.dev` if none.
 * @param {string} stdout
 */
export const pagesUrlFrom = (stdout) => /https:\/\/[a-z0-9.-]+\.pages\.dev/i.exec(stdout)?.[0] ?? null;

/** @param {DashboardDeployDeps} deps */
export async function deployDashboard(deps) {
  const { wrangler, options, list, build, log } = deps;
  const apiUrl = apiUrlFor(deps);
  const apiOrigin = originOf(apiUrl);
  if (!apiOrigin) throw new Error(`--api-url takes the API's address, e.g. https://clarion.example.com (got "${apiUrl}")`);
  log(`Building the dashboard for Cloudflare Pages: it calls the API at ${apiUrl}`);
  await build({ VITE_API_URL: apiUrl, DASHBOARD_BASE: "/", DASHBOARD_OUT_DIR: options.outDir });
  const deployArgs = [
    "pages",
    "deploy",
    options.outDir,
    "--project-name",
    options.project,
    "--branch",
    options.branch,
    "--commit-dirty=true",
  ];
  if (options.dryRun) {
    log(`\n--dry-run: nothing deployed. It would upload ${options.outDir}/:`);
    for (const file of list(options.outDir)) log(`  ${file}`);
    log(`with: wrangler ${deployArgs.join(" ")}`);
    log(`\nThen allow its origin on the Worker: DASHBOARD_ORIGINS = "https://${options.project}.pages.dev" (docs/guides/dashboard.md).`);
    return { apiUrl, url: null };
  }
  const projects = await wrangler(["pages", "project", "list", "--json"]);
  if (!projects.ok) throw new Error(`wrangler pages project list failed:\n${projects.stderr || projects.stdout}`);
  if (!pagesProjectsFrom(projects.stdout).includes(options.project)) {
    const created = await wrangler(["pages", "project", "create", options.project, "--production-branch", options.branch]);
    if (!created.ok) throw new Error(`wrangler pages project create failed:\n${created.stderr || created.stdout}`);
    log(`  Pages project ${options.project}: created`);
  } else {
    log(`  Pages project ${options.project}: found`);
  }
  const deployed = await wrangler(deployArgs);
  if (!deployed.ok) throw new Error(`wrangler pages deploy failed:\n${deployed.stderr || deployed.stdout}`);
  const url = pagesUrlFrom(deployed.stdout);
  const origin = `https://${options.project}.pages.dev`;
  log(`\nThe dashboard is at ${origin}${url && originOf(url) !== origin ? ` (this deployment: ${url})` : ""}.`);
  log(`Allow its origin on the Worker, or the browser will refuse every call: in wrangler.toml's [vars],`);
  log(`  DASHBOARD_ORIGINS = "${origin}"`);
  log("then `npm run deploy` again (several origins: comma-separated).");
  return { apiUrl, url: url ?? origin };
}
