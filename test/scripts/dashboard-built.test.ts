// The suites that start their own local Clarion build the dashboard only when `dashboardBuilt()`
// says there is none; a wrong answer rebuilt it (emptying dashboard/dist) under the browser
// suite's Clarion. After a build, the page the check looks for must be there: this fails if the
// build's layout moves and the check stays behind.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, expect, it } from "vitest";
import { buildDashboard, DASHBOARD_BUILT_ENV, DASHBOARD_INDEX, dashboardBuilt } from "../../scripts/lib.mjs";
import { ROOT } from "../local-stack";

// `npm test` built it before this stage; run alone, the file builds it once.
beforeAll(async () => {
  if (process.env[DASHBOARD_BUILT_ENV] !== "1" && !existsSync(join(ROOT, DASHBOARD_INDEX))) await buildDashboard();
}, 180_000);

it("looks for the page the dashboard's build writes", () => {
  expect(existsSync(join(ROOT, DASHBOARD_INDEX))).toBe(true);
  const told = process.env[DASHBOARD_BUILT_ENV];
  delete process.env[DASHBOARD_BUILT_ENV];
  try {
    expect(dashboardBuilt(ROOT)).toBe(true);
    expect(dashboardBuilt(join(ROOT, "no-such-folder"))).toBe(false);
  } finally {
    if (told !== undefined) process.env[DASHBOARD_BUILT_ENV] = told;
  }
});
