import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { cruise, type IReporterOutput } from "dependency-cruiser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The drizzle-only-in-data-access rule of .dependency-cruiser.cjs, run over a small probe tree:
// what a route may not import, what a repository may.
const root = resolve(__dirname, "../..");
const config = createRequire(import.meta.url)(join(root, ".dependency-cruiser.cjs"));
let probe: string;

const files: Record<string, string> = {
  "src/db/schema/index.ts": 'export const subscribers = { environmentId: "environment_id" };\nexport type Status = "sent";\n',
  "src/features/probe/routes.ts":
    'import { eq } from "drizzle-orm";\nimport { subscribers } from "../../db/schema";\nexport const leak = eq(subscribers.environmentId as never, "x");\n',
  "src/features/probe/typed-routes.ts": 'import type { Status } from "../../db/schema";\nexport const status: Status = "sent";\n',
  "src/features/probe/repository.ts":
    'import { eq } from "drizzle-orm";\nimport { subscribers } from "../../db/schema";\nexport const scoped = eq(subscribers.environmentId as never, "x");\n',
  "src/features/probe/members-repository.ts": 'import { subscribers } from "../../db/schema";\nexport const table = subscribers;\n',
  "src/delivery/probe.ts": 'import { sql } from "drizzle-orm";\nexport const raw = sql`select 1`;\n',
};

beforeAll(() => {
  probe = mkdtempSync(join(tmpdir(), "clarion-data-access-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(probe, path)), { recursive: true });
    writeFileSync(join(probe, path), text);
  }
  symlinkSync(join(root, "node_modules"), join(probe, "node_modules"), "dir");
});
afterAll(() => rmSync(probe, { recursive: true, force: true }));

async function violations(): Promise<string[]> {
  const rule = config.forbidden.find((r: { name: string }) => r.name === "drizzle-only-in-data-access");
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
    return result.output.summary.violations.map((v) => `${v.from} -> ${v.to.replace(/^.*node_modules\/drizzle-orm\/.*$/, "drizzle-orm")}`);
  } finally {
    process.chdir(cwd);
  }
}

describe("drizzle-only-in-data-access", () => {
  it("refuses a route that imports drizzle or a table, and delivery code outside its data modules", async () => {
    expect((await violations()).sort()).toEqual([
      "src/delivery/probe.ts -> drizzle-orm",
      "src/features/probe/routes.ts -> drizzle-orm",
      "src/features/probe/routes.ts -> src/db/schema/index.ts",
    ]);
  });
});
