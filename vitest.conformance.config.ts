import { defineConfig } from "vitest/config";

/**
 * The provider conformance suite runs in Node: each official SDK sends to a local capture
 * server, then our fetch adapter sends the same message, and the two requests are compared.
 * The SDKs live in test/conformance/node_modules (its own package.json, installed by `npm test`):
 * imports from test/conformance/ resolve there first, then in the root's node_modules.
 */
export default defineConfig({
  test: {
    include: ["test/conformance/**/*.test.ts"],
    environment: "node",
    testTimeout: 20_000,
  },
});
