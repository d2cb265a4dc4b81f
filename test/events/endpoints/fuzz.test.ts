// Endpoint bodies as a careless or hostile client sends them: near-valid shapes with one field
// wrong, hostile URLs and event lists. Whatever comes in, never a 5xx, always a problem document,
// and a body that is refused leaves no endpoint behind.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { EVENT_TYPES } from "../../../src/contract/event-types";
import type { WebhookEndpointCreated, WebhookEndpointList } from "../../../src/features/events/endpoints/schemas";
import { createEnvironment } from "../../factories";
import { api } from "../../request";

let key: string;
let endpointId: string;

beforeAll(async () => {
  ({ key } = await createEnvironment());
  endpointId = (await api<WebhookEndpointCreated>(key, "POST", "/v1/webhook-endpoints", { url: "https://example.com/fuzz" })).body.id;
});

const hostileUrl = fc.oneof(
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.constantFrom(
    "http://127.0.0.1/x",
    "https://[::1]/x",
    "https://169.254.169.254/latest/meta-data",
    "https://10.0.0.1/",
    "https://0x7f000001/",
    "https://localhost:8787/",
    "file:///etc/passwd",
    "javascript:alert(1)",
    "https://例え.テスト/ä",
    `https://example.com/${"a".repeat(5000)}`,
    "",
  ),
  fc.string({ maxLength: 300 }),
);
const anyValue = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.double(),
  fc.string({ maxLength: 50 }),
  fc.array(fc.string(), { maxLength: 3 }),
);
const events = fc.oneof(
  fc.subarray([...EVENT_TYPES]),
  fc.array(fc.oneof(fc.constantFrom(...EVENT_TYPES), fc.string({ maxLength: 30 }), anyValue), { maxLength: 40 }),
  anyValue,
);
const body = fc.record(
  { url: fc.oneof(hostileUrl, anyValue), events, description: fc.oneof(fc.string({ maxLength: 3000 }), anyValue), enabled: anyValue },
  { requiredKeys: [] },
);

async function expectNoServerError(method: string, path: string, input: unknown) {
  const res = await api<Record<string, unknown>>(key, method, path, input);
  const where = `${method} ${path} ${JSON.stringify(input).slice(0, 300)} → ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`;
  expect(res.status, where).toBeLessThan(500);
  if (res.status >= 400) {
    expect(res.headers.get("content-type"), where).toMatch(/^application\/problem\+json/);
    expect(res.body, where).toMatchObject({ status: res.status, code: expect.any(String) });
  }
  return res.status;
}

describe("fuzzed webhook endpoint bodies", () => {
  it("POST /v1/webhook-endpoints never answers 5xx, and creates only what it accepts", async () => {
    const before = (await api<WebhookEndpointList>(key, "GET", "/v1/webhook-endpoints?limit=100")).body.data.length;
    let created = 0;
    await fc.assert(
      fc.asyncProperty(body, async (input) => {
        if ((await expectNoServerError("POST", "/v1/webhook-endpoints", input)) === 201) created++;
      }),
      { numRuns: 60, endOnFailure: true },
    );
    const after = (await api<WebhookEndpointList>(key, "GET", "/v1/webhook-endpoints?limit=100")).body.data.length;
    expect(after - before).toBe(created);
  });

  it("PATCH /v1/webhook-endpoints/{id} never answers 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(body, async (input) => {
        await expectNoServerError("PATCH", `/v1/webhook-endpoints/${endpointId}`, input);
      }),
      { numRuns: 60, endOnFailure: true },
    );
  });

  it("rotate-secret and replay never answer 5xx", async () => {
    const options = fc.record(
      {
        overlapHours: fc.oneof(fc.integer({ min: -10, max: 10_000 }), anyValue),
        since: fc.oneof(
          fc.date().map((d) => (Number.isNaN(d.getTime()) ? "x" : d.toISOString())),
          anyValue,
        ),
        until: fc.oneof(
          fc.date().map((d) => (Number.isNaN(d.getTime()) ? "x" : d.toISOString())),
          anyValue,
        ),
        onlyFailed: anyValue,
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(options, fc.constantFrom("rotate-secret", "replay"), async (input, action) => {
        await expectNoServerError("POST", `/v1/webhook-endpoints/${endpointId}/${action}`, input);
      }),
      { numRuns: 40, endOnFailure: true },
    );
  });
});
