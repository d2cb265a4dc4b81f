import { defineConfig } from "vitest/config";

/** The Node tools (the `clarion` CLI, `npm run deploy`'s planning) tested in Node, against fakes. */
export default defineConfig({
  test: {
    include: ["test/scripts/**/*.test.ts"],
    environment: "node",
    testTimeout: 20_000,
  },
});
