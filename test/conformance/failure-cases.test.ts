import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROVIDERS, type ProviderId } from "../../src/providers/registry";
import type { ProviderAdapter } from "../../src/providers/types";
import { sendWith } from "./adapter";
import { startCaptureServer, type CaptureServer } from "./capture-server";
import { FAILURE_CASES, TIMEOUT_MS, type NoHttp, type ProviderSetup } from "./failure-cases";
import { SETUPS } from "./provider-setups";

let server: CaptureServer;
/** A local port nothing listens on: connecting to it fails at once. */
let closedUrl: string;
beforeAll(async () => {
  server = await startCaptureServer();
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  closedUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 1}`;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});
afterAll(() => server.close());

const isHttp = (setup: ProviderSetup | NoHttp): setup is ProviderSetup => !("noHttp" in setup);

describe("every adapter in the registry has a failure-case setup", () => {
  it("names each provider id, and no other", () => {
    expect(Object.keys(SETUPS).sort()).toEqual(Object.keys(PROVIDERS).sort());
  });

  it.each(Object.entries(SETUPS).filter(([, setup]) => !isHttp(setup)))("%s makes no HTTP request: %o", async (id) => {
    const adapter = PROVIDERS[id as ProviderId] as ProviderAdapter;
    const { outcome, captures } = await sendWith(adapter, { credentials: {}, baseUrl: null }, { to: "anyone", content: {} as never });
    expect(outcome.ok).toBe(true);
    expect(captures).toHaveLength(1);
  });
});

const adapters = (Object.keys(PROVIDERS) as ProviderId[]).flatMap((id) => {
  const setup = SETUPS[id];
  return setup && isHttp(setup) ? [{ id, adapter: PROVIDERS[id] as ProviderAdapter, setup }] : [];
});

describe.each(adapters)("$id", ({ adapter, setup }) => {
  const cases = FAILURE_CASES.filter((c) => c.applies?.(setup) ?? true);

  it.each(cases)("$name", async (failureCase) => {
    server.reset();
    const answer = failureCase.provider(setup);
    const url = answer === "unreachable" ? closedUrl : server.url;
    if (answer !== "unreachable") server.answer(...(setup.before ?? []), answer);
    const { outcome } = await sendWith(
      adapter,
      setup.integration(url),
      { to: setup.to(url), content: setup.content as never },
      AbortSignal.timeout(TIMEOUT_MS),
    );
    expect(outcome).toMatchObject(failureCase.expected(setup));
    if (answer !== "unreachable") expect(server.requests.length).toBeGreaterThan(0);
  });
});
