import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RETRY_SCHEDULE_SECONDS, retrySchedulePhrase } from "../../src/contract/webhook-retries";
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
});
