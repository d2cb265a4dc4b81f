import { defineConfig } from "vitest/config";

/**
 * The provider conformance suite runs in Node: each official SDK sends to a local capture
 * server, then our fetch adapter sends the same message, and the two requests are compared.
 */
export default defineConfig({
  test: {
    include: ["test/conformance/**/*.test.ts"],
    environment: "node",
    setupFiles: ["./test/conformance/setup.ts"],
    testTimeout: 20_000,
  },
});
