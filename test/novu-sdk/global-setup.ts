// One local Clarion for the Novu SDK suites (starting one takes a while).
import type { TestProject } from "vitest/node";
import { buildDashboardIfMissing } from "../../scripts/lib.mjs";
import { type LocalStack, ROOT, startLocalStack } from "../local-stack";

let stack: LocalStack | undefined;

declare module "vitest" {
  export interface ProvidedContext {
    novuBase: string;
    novuKey: string;
    novuLog: string;
  }
}

export async function setup(project: TestProject) {
  // wrangler serves the built dashboard as assets and refuses to start without it (`npm test` builds it first).
  await buildDashboardIfMissing(ROOT);
  stack = await startLocalStack({ environments: ["development"], label: "novu sdk tests" });
  project.provide("novuBase", stack.base);
  project.provide("novuKey", stack.keys.development!);
  project.provide("novuLog", stack.logFile);
}

export async function teardown() {
  await stack?.stop();
}
