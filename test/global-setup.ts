import type { TestProject } from "vitest/node";
import { startFakeProvider } from "./fake-provider/server";

declare module "vitest" {
  export interface ProvidedContext {
    fakeProviderUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const { url, server } = await startFakeProvider();
  project.provide("fakeProviderUrl", url);
  return () => new Promise<void>((resolve) => server.close(() => resolve()));
}
