import { describe, expect, it } from "vitest";
import { ruleProbe } from "./rule-probe";

// The log-store-only-through-its-entry rule of .dependency-cruiser.cjs, run over a small probe tree:
// who may build a LogStore, and that a type import is free.

const files: Record<string, string> = {
  "src/durable-objects/client/log-store.ts": "export class LogStore {\n  constructor(readonly env: unknown) {}\n}\n",
  "src/durable-objects/client/unscoped-logs.ts":
    'import { LogStore } from "./log-store";\nexport const unscopedLogs = (env: unknown) => new LogStore(env);\n',
  "src/features/probe/routes.ts":
    'import { LogStore } from "../../durable-objects/client/log-store";\nexport const logs = new LogStore({});\n',
  "src/features/probe/service.ts":
    'import type { LogStore } from "../../durable-objects/client/log-store";\nimport { unscopedLogs } from "../../durable-objects/client/unscoped-logs";\nexport const logs: LogStore = unscopedLogs({});\n',
};

const violations = ruleProbe("log-store-only-through-its-entry", files);

describe("log-store-only-through-its-entry", () => {
  it("refuses a feature that builds a LogStore, and lets one take it from unscopedLogs or name its type", async () => {
    expect(await violations()).toEqual(["src/features/probe/routes.ts -> src/durable-objects/client/log-store.ts"]);
  });
});
