import { defineConfig } from "vitest/config";

/**
 * Novu's official SDKs (`@novu/api`, `@novu/node`) against a real local Clarion, run in Node: the
 * global set-up starts one `wrangler dev` (test/local-stack.ts) and the SDKs are pointed at it
 * with `serverURL` / `backendUrl` set to its `/novu` prefix. The SDKs live in test/novu-sdk/node_modules (their own
 * package.json, installed by `npm test`).
 */
export default defineConfig({
  test: {
    include: ["test/novu-sdk/**/*.test.ts"],
    environment: "node",
    globalSetup: ["./test/novu-sdk/global-setup.ts"],
    // One Clarion for both files; they use their own subscribers, topics and workflows.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
