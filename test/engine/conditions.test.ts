import { describe, expect, it } from "vitest";
import { evaluateCondition, explainCondition } from "../../src/engine/conditions";
import type { Condition, ConditionOp } from "../../src/engine/steps";
import { sampleContext } from "./context";

const ctx = sampleContext();
const now = new Date("2025-06-02T12:00:00Z");
const leaf = (field: string, op: ConditionOp, value?: unknown): Condition => ({ field, op, value });

describe("evaluateCondition: each op", () => {
  it.each<[string, ConditionOp, unknown, boolean]>([
    ["payload.status", "eq", "shipped", true],
    ["payload.status", "eq", "pending", false],
    ["payload.total", "eq", "120", true],
    ["payload.tags", "eq", ["vip", "eu", 3], true],
    ["payload.tags", "eq", ["vip", "eu"], false],
    ["payload.missing", "eq", null, true],
    ["payload.missing", "eq", "undefined", false],
    ["payload.status", "ne", "pending", true],
    ["payload.status", "ne", "shipped", false],
    ["payload.total", "gt", 100, true],
    ["payload.total", "gt", 120, false],
    ["payload.totalText", "gt", 100, false],
    ["payload.totalText", "gt", "9", true],
    ["payload.total", "gte", 120, true],
    ["payload.total", "gte", 121, false],
    ["payload.total", "lt", 121, true],
    ["payload.total", "lt", 120, false],
    ["payload.total", "lte", 120, true],
    ["payload.total", "lte", 119.99, false],
    ["payload.status", "gt", "apple", true],
    ["payload.status", "lt", "apple", false],
    ["payload.items", "gt", 1, false],
    ["payload.total", "between", [100, 120], true],
    ["payload.total", "between", [121, 200], false],
    ["payload.total", "between", 120, false],
    ["payload.status", "in", ["pending", "shipped"], true],
    ["payload.status", "in", ["pending", "cancelled"], false],
    ["payload.status", "in", "shipped", false],
    ["payload.status", "nin", ["pending", "cancelled"], true],
    ["payload.status", "nin", ["shipped"], false],
    ["payload.orderId", "contains", "100", true],
    ["payload.orderId", "contains", "B-", false],
    ["payload.tags", "contains", "vip", true],
    ["payload.tags", "contains", "us", false],
    ["payload.total", "contains", 1, false],
    ["payload.tags", "not_contains", "us", true],
    ["payload.tags", "not_contains", "eu", false],
    ["payload.orderId", "not_contains", "A-", false],
    ["payload.missing", "not_contains", "x", true],
    ["payload.total", "not_contains", "x", false],
    ["payload.tags", "contains_all", ["vip", "eu"], true],
    ["payload.tags", "contains_all", ["vip", "us"], false],
    ["payload.orderId", "contains_all", ["A"], false],
    ["payload.orderId", "starts_with", "A-", true],
    ["payload.orderId", "starts_with", "1001", false],
    ["payload.orderId", "ends_with", "1001", true],
    ["payload.orderId", "ends_with", "A-", false],
    ["payload.total", "starts_with", "1", false],
    ["payload.status", "exists", undefined, true],
    ["payload.missing", "exists", undefined, false],
    ["payload.none", "exists", undefined, false],
    ["payload.missing", "not_exists", undefined, true],
    ["payload.status", "not_exists", undefined, false],
    ["payload.note", "empty", undefined, true],
    ["payload.list", "empty", undefined, true],
    ["payload.nested", "empty", undefined, true],
    ["payload.none", "empty", undefined, true],
    ["payload.missing", "empty", undefined, true],
    ["payload.status", "empty", undefined, false],
    ["payload.total", "empty", undefined, false],
    ["payload.tags", "not_empty", undefined, true],
    ["payload.list", "not_empty", undefined, false],
    ["payload.shippedAt", "before", "now", true],
    ["payload.shippedAt", "after", "now", false],
    ["payload.shippedAt", "after", "-P2D", true],
    ["payload.shippedAt", "after", "-P1D", false],
    ["payload.shippedAt", "before", "-PT12H", true],
    ["payload.shippedAt", "before", "PT2H", true],
    ["payload.shippedAt", "after", "2025-05-31", true],
    ["payload.shippedAt", "before", "2025-05-31T00:00:00Z", false],
    ["payload.createdMs", "before", "2025-06-01T12:00:00Z", true],
    ["payload.createdMs", "after", Date.UTC(2025, 5, 1, 12), false],
    ["payload.status", "before", "now", false],
    ["payload.shippedAt", "before", "tomorrow", false],
    ["payload.missing", "after", "-P1D", false],
    ["payload.items.0.sku", "eq", "SKU-1", true],
    ["payload.items.1.qty", "gt", 1, false],
    ["subscriber.data.plan", "eq", "pro", true],
    ["actor.firstName", "eq", "Grace", true],
    ["vars.BRAND", "eq", "Clarion", true],
    ["vars.BRAND", "eq", "Other", false],
    ["steps.sms-1.status", "eq", "sent", true],
    ["steps.sms-1.count", "gte", 2, true],
    ["steps.push-1.status", "eq", "sent", false],
    ["steps.unknown.status", "exists", undefined, false],
    ["payload.constructor", "exists", undefined, false],
  ])("%s %s %j is %s", (field, op, value, expected) => {
    expect(evaluateCondition(leaf(field, op, value), ctx, now)).toBe(expected);
  });
});

describe("evaluateCondition: nesting", () => {
  const yes = leaf("payload.status", "eq", "shipped");
  const no = leaf("payload.status", "eq", "pending");

  it.each<[string, Condition, boolean]>([
    ["all true", { all: [yes, yes] }, true],
    ["all with one false", { all: [yes, no] }, false],
    ["any with one true", { any: [no, yes] }, true],
    ["any all false", { any: [no, no] }, false],
    ["not false", { not: no }, true],
    ["not true", { not: yes }, false],
    ["all(any, not)", { all: [{ any: [no, yes] }, { not: no }] }, true],
    ["any(all, not(any))", { any: [{ all: [yes, no] }, { not: { any: [no, yes] } }] }, false],
  ])("%s", (_name, condition, expected) => {
    expect(evaluateCondition(condition, ctx, now)).toBe(expected);
  });

  it("treats odd shapes as false instead of throwing", () => {
    const odd = [null, {}, { all: "x" }, { not: null }, { field: "payload.status", op: "nope" }] as unknown as Condition[];
    for (const condition of odd) expect(evaluateCondition(condition, ctx, now)).toBe(false);
  });

  it("reads a missing actor as absent", () => {
    const noActor = sampleContext({ actor: null });
    expect(evaluateCondition(leaf("actor.firstName", "not_exists"), noActor, now)).toBe(true);
  });
});

describe("explainCondition", () => {
  it("reports every leaf, even after the result is decided", () => {
    const condition: Condition = {
      any: [leaf("payload.total", "gt", 100), { not: leaf("payload.missing", "exists") }],
    };
    expect(explainCondition(condition, ctx, now)).toEqual({
      result: true,
      leaves: [
        { field: "payload.total", op: "gt", value: 100, actual: 120, result: true },
        { field: "payload.missing", op: "exists", value: undefined, actual: undefined, result: false },
      ],
    });
  });

  it("agrees with evaluateCondition on a false condition", () => {
    const condition: Condition = { all: [leaf("payload.total", "lt", 100), leaf("vars.BRAND", "eq", "Clarion")] };
    const explained = explainCondition(condition, ctx, now);
    expect(explained.result).toBe(false);
    expect(explained.leaves.map((l) => l.result)).toEqual([false, true]);
  });
});
