import { defineConfig } from "vitest/config";

/**
 * The dashboard in a real browser, run in Node: the global set-up starts one `wrangler dev` on a
 * free port with its own state (test/local-stack.ts), and each file drives Debian's Chromium
 * (/usr/bin/chromium) with playwright-core.
 */
export default defineConfig({
  test: {
    include: ["test/browser/**/*.test.ts"],
    environment: "node",
    globalSetup: ["./test/browser/global-setup.ts"],
    // One Clarion and a few Chromium pages at a time: the machines this runs on are small.
    fileParallelism: false,
    testTimeout: 60_000,
    // A page under a loaded machine takes more than a second to settle; polls wait up to 15 s.
    expect: { poll: { timeout: 15_000 } },
    hookTimeout: 120_000,
  },
});
