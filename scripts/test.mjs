// `npm test`: every test suite — Biome (lint and format), types, the layer rules
// (.dependency-cruiser.cjs), the Workers runtime suite, the provider conformance suite (official
// SDKs against our adapters, in Node), Novu's SDKs against a local Clarion, the documentation's
// examples against another, and the dashboard in a real browser. Each stage is timed and the
// times are printed at the end; the first failure stops the run and is named.
//
// `node scripts/test.mjs <stage>...` runs only the stages named (the `test:*` scripts in
// package.json; docs/guides/testing.md lists them).
import { buildDashboard, DASHBOARD_BUILT_ENV, dashboardBuilt, ensureInstalled, run } from "./lib.mjs";
import { ownRegistry } from "./registry.mjs";

// The tests' runtime gets its own dev registry too, so a running `npm start` never takes its jobs.
Object.assign(process.env, ownRegistry(".wrangler/registry-test"));

let dashboardBuild;
/**
 * The dashboard as the code is now, built once per run: a stage that asks while it builds waits
 * for that build. Once built, the stages started after are told (DASHBOARD_BUILT_ENV), so the
 * deploy dry-run and the browser suite's set-up do not build it again: a build empties
 * dashboard/dist while the other lane's local Clarion serves it, and the browser suite's page
 * then met 500s for its scripts (the flaky failures of test/browser/workflows.test.ts, the first
 * file it runs, beside the deploy stage).
 */
const freshDashboard = () =>
  (dashboardBuild ??= buildDashboard().then(() => {
    process.env[DASHBOARD_BUILT_ENV] = "1";
  }));
/**
 * wrangler (the Workers suite, the local stacks, the deploy dry-run) serves the built dashboard as
 * assets and refuses to start without it. A build under way empties dashboard/dist first, so a
 * stage waits for it rather than start on a half-written folder.
 */
const ensureDashboard = () => dashboardBuild ?? (dashboardBuilt() ? undefined : freshDashboard());

/** tsc's incremental state, outside git: a second run re-checks only what changed since the first. */
const tsc = (project, name) => [
  "tsc",
  ["-p", project, "--incremental", "--tsBuildInfoFile", `node_modules/.cache/tsc/${name}.tsbuildinfo`],
];

const vitest = (...args) => ["vitest", ["run", ...args]];

/**
 * Every stage, in the order a sequential run takes them. `needs` runs first (once per run);
 * `commands` run one after another.
 */
const STAGES = {
  static: {
    what: "Biome, generated files current, types, layer rules, function length, no polling",
    // tsconfig.node.json type-checks the SDK suites too, against the SDKs' own types.
    needs: async () => {
      await ensureInstalled("dashboard", "the dashboard's dependencies");
      await ensureInstalled("test/conformance", "the conformance suite's provider SDKs");
      await ensureInstalled("test/novu-sdk", "Novu's SDKs for the compatibility suite");
    },
    commands: [
      ["biome", ["check"]],
      // The dashboard's client types must match the routes (`npm run openapi` rewrites them).
      ["node", ["scripts/openapi-types.mjs", "--check"]],
      // The reference tables in docs/reference/ must match the code that defines them (`npm run reference` rewrites them).
      ["node", ["scripts/reference.mjs", "--check"]],
      // The docs the MCP server's search_docs answers from must match docs/ (`npm run reference` rewrites them).
      ["node", ["scripts/docs-corpus.mjs", "--check"]],
      // Env comes from wrangler.toml (`npm run types` rewrites worker-configuration.d.ts); .dev.vars' secrets stay out of it.
      ["npm", ["run", "--silent", "types", "--", "--check"]],
      tsc(".", "worker"),
      tsc("tsconfig.node.json", "node"),
      tsc("dashboard/tsconfig.json", "dashboard"),
      ["depcruise", ["src", "--config", ".dependency-cruiser.cjs"]],
      // No function in src/ over 80 lines (`npm run lint:length`).
      ["node", ["scripts/function-length.mjs"]],
      // Tests outside test/e2e/ and test/novu-sdk/ drive queues and alarms instead of polling (`npm run lint:polling`).
      ["node", ["scripts/no-polling.mjs"]],
    ],
  },
  unit: {
    what: "pure functions (engine, lib) in the Workers runtime",
    needs: ensureDashboard,
    commands: [vitest("test/engine", "test/lib")],
  },
  workers: { what: "the Workers runtime suite, e2e included", needs: ensureDashboard, commands: [vitest()] },
  e2e: { what: "trigger → Queue → provider → status, in the Workers runtime", needs: ensureDashboard, commands: [vitest("test/e2e")] },
  scripts: {
    what: "the CLI and deploy tooling, in Node",
    needs: ensureDashboard,
    commands: [vitest("--config", "vitest.scripts.config.ts")],
  },
  // The deploy bundles offline (`wrangler deploy --dry-run`): a broken deploy fails here, not in production.
  deploy: { what: "wrangler deploy --dry-run", needs: ensureDashboard, commands: [["node", ["scripts/deploy.mjs", "--dry-run"]]] },
  conformance: {
    what: "official provider SDKs against our adapters",
    needs: () => ensureInstalled("test/conformance", "the conformance suite's provider SDKs"),
    commands: [vitest("--config", "vitest.conformance.config.ts")],
  },
  // Novu's official SDKs, unmodified, against a real local Clarion (docs/guides/migrating-from-novu.md).
  novu: {
    what: "Novu's SDKs against a local Clarion at /novu",
    needs: async () => {
      await ensureInstalled("test/novu-sdk", "Novu's SDKs for the compatibility suite");
      await ensureDashboard();
    },
    commands: [vitest("--config", "vitest.novu.config.ts")],
  },
  // The documentation's curl examples, in reading order, against a fresh local Clarion (docs/README.md).
  docs: { what: "the docs' curl examples", needs: ensureDashboard, commands: [vitest("--config", "vitest.docs.config.ts")] },
  // The browser tests drive the dashboard as built now, never an older build.
  browser: { what: "the dashboard in Chromium", needs: freshDashboard, commands: [vitest("--config", "vitest.browser.config.ts")] },
};

/**
 * `npm test` on two cores: two lanes side by side, then the deploy dry-run and the conformance suite alone. The first
 * lane builds the dashboard, runs the Workers suite, then drives the dashboard in Chromium; the
 * second starts at once with the checks that need no build, then the Node suites, which start
 * their own `wrangler dev` on a free port with their own state. The browser suite follows the
 * Workers suite rather than running beside it: its 10 s page waits timed out beside it on the
 * loaded machine. Lane "b" is buffered and printed stage by stage so the two outputs do not
 * interleave line by line. The conformance suite's provider timeouts are 400 ms, which a busy
 * neighbour makes a prompt answer miss, so nothing runs beside it. The deploy dry-run (about 5 s)
 * runs after the lanes too. The browser suite's pages used to meet 500s for their scripts now and
 * then (`/dashboard/` answering 500 or 404, as when the assets are missing for a moment): the
 * Node suites of the other lane (the CLI's, Novu's) rebuilt the dashboard, emptying dashboard/dist
 * under the browser suite's Clarion, because they checked for a file no build writes. They ask
 * `dashboardBuilt()` (scripts/lib.mjs) now, which knows where the build puts its page.
 */
const LANES = [
  ["workers", "browser"],
  ["static", "scripts", "novu", "docs"],
];
const AFTER_LANES = ["deploy", "conformance"];

const results = new Map(); // stage → { seconds, status }
const aborter = new AbortController();
let failed = null;

/** Runs `body` as the stage `name`: its time and outcome go in the table; the first failure stops every other stage. */
async function timed(name, body) {
  const started = performance.now();
  results.set(name, { seconds: 0, status: "running" });
  try {
    if (aborter.signal.aborted) throw new Error("stopped: another stage failed");
    await body();
    results.set(name, { seconds: (performance.now() - started) / 1000, status: "passed" });
  } catch (error) {
    const stopped = aborter.signal.aborted;
    results.set(name, { seconds: (performance.now() - started) / 1000, status: stopped ? "stopped" : "FAILED" });
    if (!stopped) {
      failed ??= { name, error };
      aborter.abort();
    }
    throw error;
  }
}

const runStage = (name, buffered) =>
  timed(name, async () => {
    const stage = STAGES[name];
    await stage.needs?.();
    for (const [command, args] of stage.commands) {
      const out = await run(command, args, buffered ? { quiet: true, signal: aborter.signal } : { signal: aborter.signal });
      if (buffered && out) process.stdout.write(`\n── ${name}: ${command} ${args.join(" ")}\n${out}`);
    }
  });

function printTable(wallSeconds, concurrent) {
  const rows = [...results].map(([name, r]) => [name, r.seconds.toFixed(1), r.status]);
  const width = Math.max(...rows.map((r) => r[0].length), 5);
  console.log(`\n${"stage".padEnd(width)}  seconds  status`);
  for (const [name, seconds, status] of rows) console.log(`${name.padEnd(width)}  ${seconds.padStart(7)}  ${status}`);
  const note = concurrent ? ` (side by side: ${LANES.map((lane) => lane.join(" → ")).join(" ‖ ")}; then ${AFTER_LANES.join(" → ")})` : "";
  console.log(`${"total".padEnd(width)}  ${wallSeconds.toFixed(1).padStart(7)}  wall clock${note}`);
  if (failed) console.error(`\nnpm test failed at stage "${failed.name}": ${failed.error.message}`);
}

const requested = process.argv.slice(2);
const unknown = requested.filter((name) => !(name in STAGES));
if (unknown.length) {
  console.error(`unknown stage ${unknown.join(", ")}; stages: ${Object.keys(STAGES).join(", ")}`);
  process.exit(2);
}

const started = performance.now();
const concurrent = requested.length === 0;
try {
  if (concurrent) {
    // allSettled: when one lane fails, the other's running stage is stopped and recorded before the table prints.
    await Promise.allSettled(
      LANES.map(async (lane, i) => {
        if (i === 0) await timed("dashboard", freshDashboard);
        for (const name of lane) await runStage(name, i > 0);
      }),
    );
    if (!failed) for (const name of AFTER_LANES) await runStage(name, false);
  } else {
    for (const name of requested) await runStage(name, false);
  }
} catch {
  // Named in the table's last line.
}
printTable((performance.now() - started) / 1000, concurrent);
process.exitCode = failed ? 1 : 0;
