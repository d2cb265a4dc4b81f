// docs/grafana/clarion-dashboard.json: an importable Grafana dashboard whose every query reads a
// metric /metrics serves.
import { describe, expect, it } from "vitest";
import dashboard from "../../docs/grafana/clarion-dashboard.json";
import { createWorkflow } from "../e2e/helpers";
import { createSandboxEnvironment, unique } from "../factories";
import { triggerDelivered } from "../held-triggers";
import { scrape } from "./scrape";

interface Target {
  refId: string;
  expr: string;
  datasource: { type: string; uid: string };
}
interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource: { type: string; uid: string };
  targets: Target[];
}

const panels = dashboard.panels as Panel[];
const queries = [
  ...panels.flatMap((p) => p.targets.map((t) => t.expr)),
  ...dashboard.templating.list.map((v) => (typeof v.query === "string" ? v.query : v.query.query)),
];
/** Grafana's import replaces `${DS_PROMETHEUS}` with the data source picked for the input. */
const PROMETHEUS = { type: "prometheus", uid: ["$", "{DS_PROMETHEUS}"].join("") };

describe("the Grafana dashboard in docs/grafana", () => {
  it("has the shape Grafana imports: a Prometheus data source input, a uid, a schema version and laid-out panels", () => {
    expect(dashboard.__inputs).toEqual([expect.objectContaining({ name: "DS_PROMETHEUS", type: "datasource", pluginId: "prometheus" })]);
    expect(dashboard.uid).toMatch(/^[a-z0-9-]{1,40}$/);
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    expect(new Set(panels.map((p) => p.id)).size).toBe(panels.length);
    for (const p of panels) {
      expect(["timeseries", "stat"]).toContain(p.type);
      expect(p.datasource).toEqual(PROMETHEUS);
      expect(p.gridPos.x + p.gridPos.w).toBeLessThanOrEqual(24);
      expect(p.targets.length).toBeGreaterThan(0);
      for (const t of p.targets) expect(t.datasource).toEqual(PROMETHEUS);
    }
  });

  it("queries only metrics that /metrics serves, and every one of them", async () => {
    // A sent message, so the latency histogram has series (its _bucket lines).
    const { key } = await createSandboxEnvironment();
    const workflow = unique("charted");
    await createWorkflow(key, { key: workflow, steps: [{ id: "mail", type: "email", template: { subject: "s", text: "Hi" } }] });
    await triggerDelivered(key, { workflow, to: { subscriberId: unique("g"), email: "g@example.com" } });
    const served = await scrape();

    const queried = new Set(queries.flatMap((q) => [...q.matchAll(/\bclarion_[a-z0-9_]+/g)].map((m) => m[0])));
    expect([...queried].filter((name) => !served.has(name))).toEqual([]);
    const families = [...served].filter(([, f]) => f.type !== "UNTYPED").map(([name]) => name);
    const read = (family: string) => [...queried].some((name) => name === family || name.startsWith(`${family}_`));
    expect(families.filter((family) => !read(family))).toEqual([]);
  });
});
