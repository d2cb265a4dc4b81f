import { beforeAll, describe, expect, it } from "vitest";
import { diffSections, stepRows } from "../../dashboard/src/pages/workflows/history/diff-rows";
import { markLines, pairRows } from "../../dashboard/src/ui/field-diff";
import type { components } from "../../dashboard/src/api/openapi";
import { createEnvironment, unique } from "../factories";
import { api } from "../request";

// The History tab's side-by-side rows, built from what the real API answers for two versions.

type WorkflowDefinition = components["schemas"]["WorkflowDefinition"];
type VersionChange = components["schemas"]["VersionChange"];

let key: string;
const call = <T>(method: string, path: string, body?: unknown) => api<T>(key, method, path, body);

beforeAll(async () => {
  key = (await createEnvironment()).key;
});

async function twoVersions(first: Record<string, unknown>, second: Record<string, unknown>) {
  const workflow = unique("hist").toLowerCase();
  expect((await call("POST", "/v1/workflows", { key: workflow, ...first })).status).toBe(201);
  expect((await call("PUT", `/v1/workflows/${workflow}`, { key: workflow, ...second })).status).toBe(200);
  const [from, to, diff] = await Promise.all([
    call<{ definition: WorkflowDefinition }>("GET", `/v1/workflows/${workflow}/versions/1`),
    call<{ definition: WorkflowDefinition }>("GET", `/v1/workflows/${workflow}/versions/2`),
    call<{ changes: VersionChange[] }>("GET", `/v1/workflows/${workflow}/diff?from=1&to=2`),
  ]);
  return diffSections(from.body.definition, to.body.definition, diff.body.changes);
}

const email = (subject: string, html = "<p>Hello</p>\n<p>Bye</p>") => ({ id: "mail", type: "email", template: { subject, html } });
const sms = (id: string, body: string) => ({ id, type: "sms", template: { body } });

describe("History diff rows", () => {
  it("highlights a changed template field and leaves its siblings unchanged", async () => {
    const sections = await twoVersions({ name: "A", steps: [email("Hi")] }, { name: "A", steps: [email("Hello there")] });
    const mail = sections.find((s) => s.step === "mail");
    expect(mail?.change).toBe("changed");
    expect(mail?.rows.filter((r) => r.changed)).toEqual([{ path: "template.subject", before: "Hi", after: "Hello there", changed: true }]);
    expect(sections[0]).toMatchObject({ step: null, change: "unchanged" });
  });

  it("shows an added step and a removed one in place, and a changed setting", async () => {
    const sections = await twoVersions(
      { name: "A", steps: [sms("first", "one"), sms("gone", "two"), sms("last", "three")] },
      { name: "B", unsubscribe: "none", steps: [sms("first", "one"), sms("last", "three"), sms("new", "four")] },
    );
    expect(sections.map((s) => [s.step, s.change])).toEqual([
      [null, "changed"],
      ["first", "unchanged"],
      ["gone", "removed"],
      ["last", "unchanged"],
      ["new", "added"],
    ]);
    expect(sections[0]?.rows.filter((r) => r.changed).map((r) => r.path)).toEqual(["name", "unsubscribe"]);
    expect(sections[2]?.rows).toEqual([
      { path: "type", before: "sms", after: undefined, changed: true },
      { path: "template.body", before: "two", after: undefined, changed: true },
    ]);
  });

  it("shows steps inside branch paths as their own sections, where they sit, a step taken into a path as moved", async () => {
    const branch = (steps: Record<string, unknown>[], ifValue: unknown) => ({
      id: "route",
      type: "branch",
      paths: [{ id: "vip", name: "VIP", if: { field: "payload.vip", op: "eq", value: ifValue }, steps }],
      default: { steps: [sms("fallback", "x")] },
    });
    const sections = await twoVersions(
      { name: "A", steps: [sms("a", "1"), branch([sms("inner", "old")], true)] },
      { name: "A", steps: [branch([sms("inner", "new"), sms("a", "1")], false)] },
    );
    expect(sections.map((s) => [s.step, s.change, s.where ?? null, s.depth])).toEqual([
      [null, "unchanged", null, 0],
      ["route", "changed", null, 0],
      ["inner", "changed", "route › VIP", 1],
      ["a", "moved", "route › VIP", 1],
      ["fallback", "unchanged", "route › default", 1],
    ]);
    expect(sections.find((s) => s.step === "a")?.movedFrom).toBe("the top level");
    // The branch's own rows are its paths' fields; the steps inside are not repeated in them.
    expect(sections[1]?.rows.filter((r) => r.changed)).toEqual([
      { path: "paths.0.if", before: expect.stringContaining("true"), after: expect.stringContaining("false"), changed: true },
    ]);
    expect(sections[2]?.rows.filter((r) => r.changed)).toEqual([{ path: "template.body", before: "old", after: "new", changed: true }]);
  });

  it("says a step moved when the steps kept changed order", async () => {
    const sections = await twoVersions(
      { name: "A", steps: [sms("a", "1"), sms("b", "2")] },
      { name: "A", steps: [sms("b", "2"), sms("a", "1")] },
    );
    expect(sections.map((s) => [s.step, s.change])).toEqual([
      [null, "unchanged"],
      ["b", "moved"],
      ["a", "moved"],
    ]);
  });

  it("marks a whole locale added as changed on every one of its fields", async () => {
    const sections = await twoVersions(
      { name: "A", steps: [email("Hi")] },
      { name: "A", steps: [{ ...email("Hi"), locales: { de: { subject: "Hallo" } } }] },
    );
    expect(sections.find((s) => s.step === "mail")?.rows.filter((r) => r.changed)).toEqual([
      { path: "locales.de.subject", before: undefined, after: "Hallo", changed: true },
    ]);
  });
});

describe("markLines", () => {
  it("marks only the lines the other side lacks, counting repeats", () => {
    expect(markLines("a\nb\nb\nc", "a\nb\nd")).toEqual([
      { text: "a", marked: false },
      { text: "b", marked: false },
      { text: "b", marked: true },
      { text: "c", marked: true },
    ]);
  });

  it("marks every line of a field the other side does not have", () => {
    expect(markLines("x", undefined)).toEqual([{ text: "x", marked: true }]);
  });
});

describe("stepRows and pairRows", () => {
  it("shows a condition whole and template fields one by one", () => {
    const rows = stepRows({ id: "s", type: "sms", template: { body: "hi" }, if: { field: "payload.x", op: "exists" } });
    expect(rows.map((r) => r.path)).toEqual(["type", "template.body", "if"]);
  });

  it("counts a field the API named as changed even when both sides read the same", () => {
    expect(pairRows([{ path: "if", value: "1" }], [{ path: "if", value: "1" }], ["if.all.0.value"])[0]?.changed).toBe(true);
  });
});
