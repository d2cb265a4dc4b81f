// `npm start`'s wrangler dev command line: what the local Worker is given from npm start's environment.
import { describe, expect, it } from "vitest";
import { startArgs } from "../../scripts/start-args.mjs";

const varsOf = (args: string[]) => args.flatMap((a, i) => (args[i - 1] === "--var" ? [a] : []));

describe("npm start", () => {
  it("passes METRICS_TOKEN from its environment into the local Worker, as it does PUBLIC_URL", () => {
    const vars = varsOf(startArgs({ host: "127.0.0.1", port: "8787", env: { METRICS_TOKEN: "scrape-me" } }));
    expect(vars).toContain("METRICS_TOKEN:scrape-me");
    expect(vars).toContain("PUBLIC_URL:http://127.0.0.1:8787");
  });

  it("leaves /metrics off locally without METRICS_TOKEN", () => {
    const vars = varsOf(startArgs({ host: "127.0.0.1", port: "8787", env: {} }));
    expect(vars.some((v) => v.startsWith("METRICS_TOKEN:"))).toBe(false);
  });
});
