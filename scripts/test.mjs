// `npm test`: every test suite, in the Workers runtime and (for the dashboard) in a real browser.
import { run } from "./lib.mjs";

await run("vite", ["build", "--config", "dashboard/vite.config.ts", "--logLevel", "warn"]);
await run("tsc", ["-p", "."]);
await run("vitest", ["run"]);
