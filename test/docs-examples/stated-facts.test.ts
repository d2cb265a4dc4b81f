import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RETRY_SCHEDULE_SECONDS, retrySchedulePhrase } from "../../src/contract/webhook-retries";
import {
  HTTP_MAX_ATTEMPTS,
  HTTP_MAX_RETRY_AFTER_SECONDS,
  HTTP_PARALLEL_REQUESTS,
  HTTP_RETRY_DELAYS_SECONDS,
  MAX_JSON_BODY_BYTES,
  MAX_TEXT_BODY_CHARS,
  RESPONSE_HEADER_PREFIX,
  RESPONSE_HEADERS,
} from "../../src/delivery/control/http-limits";
import { HTTP_DEFAULT_TIMEOUT_MS, HTTP_MAX_TIMEOUT_MS } from "../../src/engine/steps";
import { LATENCY_BUCKETS_MS } from "../../src/durable-objects/log/rollups/rows";
import { ROOT } from "../local-stack";

const page = (path: string) => readFileSync(join(ROOT, path), "utf8").replace(/\s+/g, " ");

/** Figures the docs state in words, checked against the code that decides them. */
describe("what the docs say the code does", () => {
  it("the webhooks guide gives the retry schedule delivery follows", () => {
    const delays = RETRY_SCHEDULE_SECONDS.map((s) => (s < 60 ? `${s} s` : s < 3600 ? `${s / 60} min` : `${s / 3600} h`));
    const listed = `${delays.slice(0, -1).join(", ")} and ${delays.at(-1)}`;
    const guide = page("docs/guides/event-webhooks.md");
    expect(guide).toContain(`retried after ${listed}`);
    expect(guide).toContain(retrySchedulePhrase());
  });

  it("the fetch step guide gives the retries, limits and headers delivery keeps", () => {
    const guide = page("docs/guides/http-fetch-step.md");
    const [first, ...later] = HTTP_RETRY_DELAYS_SECONDS;
    expect(first).toBe(0);
    expect(guide).toContain(
      `at most ${HTTP_MAX_ATTEMPTS} attempts: the second at once, in the same run, then retried after ${later.map((s) => `${s} s`).join(" and ")}`,
    );
    expect(guide).toContain(`up to ${HTTP_MAX_RETRY_AFTER_SECONDS / 60} minutes`);
    expect(guide).toContain(`${HTTP_PARALLEL_REQUESTS} at a time`);
    expect(guide).toContain(`up to ${MAX_JSON_BODY_BYTES / 1024} KB`);
    expect(guide).toContain(`first ${MAX_TEXT_BODY_CHARS.toLocaleString("en-US")} characters`);
    expect(guide).toContain(
      `100 to ${HTTP_MAX_TIMEOUT_MS.toLocaleString("en-US")} ms, default ${HTTP_DEFAULT_TIMEOUT_MS.toLocaleString("en-US")}`,
    );
    const listed = `${RESPONSE_HEADERS.map((h) => `\`${h}\``).join(", ")}, and every header starting with \`${RESPONSE_HEADER_PREFIX}\``;
    expect(guide).toContain(listed);
  });

  it("the observability guide gives the send latency buckets /metrics serves", () => {
    const seconds = LATENCY_BUCKETS_MS.map((ms) => String(ms / 1000));
    const guide = page("docs/guides/observability.md");
    expect(guide).toContain(`in buckets of ${seconds.slice(0, -1).join(", ")} and ${seconds.at(-1)} s`);
  });
});
