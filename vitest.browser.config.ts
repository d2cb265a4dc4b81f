import { defineConfig } from "vitest/config";

/**
 * The dashboard in a real browser, run in Node: the test starts `wrangler dev` on a free port
 * with its own state and drives Debian's Chromium (/usr/bin/chromium) with playwright-core.
 */
export default defineConfig({
  test: {
    include: ["test/browser/**/*.test.ts"],
    environment: "node",
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
