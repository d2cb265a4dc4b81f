// `npm test`: every test suite — Biome (lint and format), types, the layer rules
// (.dependency-cruiser.cjs), the Workers runtime suite, the provider conformance suite (official
// SDKs against our adapters, in Node), Novu's SDKs against a local Clarion, the documentation's
// examples against another, and the dashboard in a real browser.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { buildDashboard, run } from "./lib.mjs";
import { ownRegistry } from "./registry.mjs";

// The tests' runtime gets its own dev registry too, so a running `npm start` never takes its jobs.
Object.assign(process.env, ownRegistry(".wrangler/registry-test"));

/**
 * Suites that test against official SDKs keep them in their own package.json, not in the root's:
 * `npm install` stays lean for someone who only runs Clarion. Installed here when missing: the
 * provider SDKs the conformance suite compares with, and Novu's SDKs the compatibility suite drives.
 */
async function ensureSdks(dir, what) {
  const { devDependencies } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const missing = Object.keys(devDependencies).filter((name) => !existsSync(join(dir, "node_modules", name, "package.json")));
  if (!missing.length) return;
  console.log(`installing ${what} into ${dir}/node_modules (${missing.length} missing)`);
  await run("npm", ["install", "--prefix", dir, "--no-audit", "--no-fund", "--no-package-lock"]);
}

await ensureSdks("test/conformance", "the conformance suite's provider SDKs");
await ensureSdks("test/novu-sdk", "Novu's SDKs for the compatibility suite");
await run("biome", ["check"]);
// The dashboard's client types must match the routes (`npm run openapi` rewrites them).
await run("node", ["scripts/openapi-types.mjs", "--check"]);
// The reference tables in docs/reference/ must match the code that defines them (`npm run reference` rewrites them).
await run("node", ["scripts/reference.mjs", "--check"]);
await buildDashboard();
await run("tsc", ["-p", "."]);
await run("tsc", ["-p", "tsconfig.node.json"]);
await run("tsc", ["-p", "dashboard/tsconfig.json"]);
await run("depcruise", ["src", "--config", ".dependency-cruiser.cjs"]);
await run("vitest", ["run"]);
await run("vitest", ["run", "--config", "vitest.scripts.config.ts"]);
// The deploy bundles offline (`wrangler deploy --dry-run`): a broken deploy fails here, not in production.
await run("node", ["scripts/deploy.mjs", "--dry-run"]);
await run("vitest", ["run", "--config", "vitest.conformance.config.ts"]);
// Novu's official SDKs, unmodified, against a real local Clarion (docs/guides/migrating-from-novu.md).
await run("vitest", ["run", "--config", "vitest.novu.config.ts"]);
// The documentation's curl examples, in reading order, against a fresh local Clarion (docs/README.md).
await run("vitest", ["run", "--config", "vitest.docs.config.ts"]);
if (existsSync("vitest.browser.config.ts")) await run("vitest", ["run", "--config", "vitest.browser.config.ts"]);
