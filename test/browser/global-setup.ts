// One local Clarion for every browser test file (starting one takes a while), and the built dashboard it serves.
import type { TestProject } from "vitest/node";
import { buildDashboardOnce } from "../../scripts/lib.mjs";
import { freePort, type LocalStack, startLocalStack } from "../local-stack";
import { findChromium } from "./chromium";

let stack: LocalStack | undefined;

declare module "vitest" {
  export interface ProvidedContext {
    base: string;
    apiKey: string;
    productionKey: string;
    adminKey: string;
    state: string;
    /** The one origin besides its own the API lets call it (DASHBOARD_ORIGINS): where pages.test.ts serves the Pages build. */
    pagesOrigin: string;
  }
}

export async function setup(project: TestProject) {
  // Without Chromium the suites skip (see chromium.ts): no need to start anything.
  if (!findChromium()) return;
  await buildDashboardOnce();
  const pagesOrigin = `http://127.0.0.1:${await freePort()}`;
  stack = await startLocalStack({
    environments: ["development", "production"],
    vars: { DASHBOARD_ORIGINS: pagesOrigin },
    label: "browser tests",
  });
  project.provide("pagesOrigin", pagesOrigin);
  project.provide("base", stack.base);
  project.provide("apiKey", stack.keys.development!);
  project.provide("productionKey", stack.keys.production!);
  project.provide("adminKey", stack.adminKey);
  project.provide("state", stack.state);
}

export async function teardown() {
  await stack?.stop();
}
