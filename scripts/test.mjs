// `npm test`: every test suite — Biome (lint and format), types, the layer rules
// (.dependency-cruiser.cjs), the Workers runtime suite, the provider conformance suite (official
// SDKs against our adapters, in Node), and the dashboard in a real browser.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "./lib.mjs";
import { ownRegistry } from "./registry.mjs";

// The tests' runtime gets its own dev registry too, so a running `npm start` never takes its jobs.
Object.assign(process.env, ownRegistry(".wrangler/registry-test"));

/**
 * The provider SDKs the conformance suite compares with live in test/conformance/package.json, not
 * in the root's: `npm install` stays lean for someone who only runs Clarion. Installed here when missing.
 */
async function ensureConformanceSdks() {
  const dir = "test/conformance";
  const { devDependencies } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const missing = Object.keys(devDependencies).filter((name) => !existsSync(join(dir, "node_modules", name, "package.json")));
  if (!missing.length) return;
  console.log(`installing the conformance suite's provider SDKs into ${dir}/node_modules (${missing.length} missing)`);
  await run("npm", ["install", "--prefix", dir, "--no-audit", "--no-fund", "--no-package-lock"]);
}

await ensureConformanceSdks();
await run("biome", ["check"]);
// The dashboard's client types must match the routes (`npm run openapi` rewrites them).
await run("node", ["scripts/openapi-types.mjs", "--check"]);
await run("vite", ["build", "--config", "dashboard/vite.config.ts", "--logLevel", "warn"]);
await run("tsc", ["-p", "."]);
await run("tsc", ["-p", "tsconfig.node.json"]);
await run("tsc", ["-p", "dashboard/tsconfig.json"]);
await run("depcruise", ["src", "--config", ".dependency-cruiser.cjs"]);
await run("vitest", ["run"]);
await run("vitest", ["run", "--config", "vitest.scripts.config.ts"]);
// The deploy bundles offline (`wrangler deploy --dry-run`): a broken deploy fails here, not in production.
await run("node", ["scripts/deploy.mjs", "--dry-run"]);
await run("vitest", ["run", "--config", "vitest.conformance.config.ts"]);
if (existsSync("vitest.browser.config.ts")) await run("vitest", ["run", "--config", "vitest.browser.config.ts"]);
