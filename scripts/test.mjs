// `npm test`: every test suite — Biome (lint and format), types, the layer rules
// (.dependency-cruiser.cjs), the Workers runtime suite, the provider conformance suite (official
// SDKs against our adapters, in Node), and the dashboard in a real browser.
import { existsSync } from "node:fs";
import { run } from "./lib.mjs";
import { ownRegistry } from "./registry.mjs";

// The tests' runtime gets its own dev registry too, so a running `npm start` never takes its jobs.
Object.assign(process.env, ownRegistry(".wrangler/registry-test"));

await run("biome", ["check"]);
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
