import { describe, expect, it } from "vitest";
import { ruleProbe } from "./rule-probe";

// The drizzle-only-in-data-access rule of .dependency-cruiser.cjs, run over a small probe tree:
// what a route may not import, what a repository may.

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

const violations = ruleProbe("drizzle-only-in-data-access", files, (to) => to.replace(/^.*node_modules\/drizzle-orm\/.*$/, "drizzle-orm"));

describe("drizzle-only-in-data-access", () => {
  it("refuses a route that imports drizzle or a table, and delivery code outside its data modules", async () => {
    expect((await violations()).sort()).toEqual([
      "src/delivery/probe.ts -> drizzle-orm",
      "src/features/probe/routes.ts -> drizzle-orm",
      "src/features/probe/routes.ts -> src/db/schema/index.ts",
    ]);
  });
});
