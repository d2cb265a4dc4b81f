import { defineConfig } from "vitest/config";

/**
 * The documentation's curl examples, run in reading order against a fresh local Clarion
 * (test/local-stack.ts), each checked against the answer the docs give for it.
 */
export default defineConfig({
  test: {
    include: ["test/docs-examples/**/*.test.ts"],
    environment: "node",
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
