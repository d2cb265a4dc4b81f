import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { cruise, type IReporterOutput } from "dependency-cruiser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The log-store-only-through-its-entry rule of .dependency-cruiser.cjs, run over a small probe tree:
// who may build a LogStore, and that a type import is free.
const root = resolve(__dirname, "../..");
const config = createRequire(import.meta.url)(join(root, ".dependency-cruiser.cjs"));
let probe: string;

const files: Record<string, string> = {
  "src/durable-objects/client/log-store.ts": "export class LogStore {\n  constructor(readonly env: unknown) {}\n}\n",
  "src/durable-objects/client/unscoped-logs.ts":
    'import { LogStore } from "./log-store";\nexport const unscopedLogs = (env: unknown) => new LogStore(env);\n',
  "src/features/probe/routes.ts":
    'import { LogStore } from "../../durable-objects/client/log-store";\nexport const logs = new LogStore({});\n',
  "src/features/probe/service.ts":
    'import type { LogStore } from "../../durable-objects/client/log-store";\nimport { unscopedLogs } from "../../durable-objects/client/unscoped-logs";\nexport const logs: LogStore = unscopedLogs({});\n',
};

beforeAll(() => {
  probe = mkdtempSync(join(tmpdir(), "clarion-log-store-rule-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(probe, path)), { recursive: true });
    writeFileSync(join(probe, path), text);
  }
  symlinkSync(join(root, "node_modules"), join(probe, "node_modules"), "dir");
});
afterAll(() => rmSync(probe, { recursive: true, force: true }));

async function violations(): Promise<string[]> {
  const rule = config.forbidden.find((r: { name: string }) => r.name === "log-store-only-through-its-entry");
  const cwd = process.cwd();
  process.chdir(probe);
  try {
    const result: IReporterOutput = await cruise(["src"], {
      ruleSet: { forbidden: [rule] },
      validate: true,
      tsPreCompilationDeps: true,
      doNotFollow: { path: "node_modules" },
      enhancedResolveOptions: config.options.enhancedResolveOptions,
    });
    if (typeof result.output === "string") throw new Error(result.output);
    return result.output.summary.violations.map((v) => `${v.from} -> ${v.to}`);
  } finally {
    process.chdir(cwd);
  }
}

describe("log-store-only-through-its-entry", () => {
  it("refuses a feature that builds a LogStore, and lets one take it from unscopedLogs or name its type", async () => {
    expect(await violations()).toEqual(["src/features/probe/routes.ts -> src/durable-objects/client/log-store.ts"]);
  });
});
