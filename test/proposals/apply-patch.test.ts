import { describe, expect, it } from "vitest";
import { type AnyPatchOperation, applyJsonPatch, jsonPatch, PatchError } from "../../src/features/workflows/versions/json-patch";

// RFC 6902's operations as a proposal's patch uses them (the RFC's appendix A examples, in short).
const doc = { name: "Welcome", tags: ["a", "b"], "a/b": { "m~n": 1 }, steps: [{ id: "mail" }] };

describe("applyJsonPatch", () => {
  it.each<[string, AnyPatchOperation[], unknown]>([
    ["adds a member", [{ op: "add", path: "/description", value: "Hi" }], { ...doc, description: "Hi" }],
    ["inserts into an array", [{ op: "add", path: "/tags/1", value: "x" }], { ...doc, tags: ["a", "x", "b"] }],
    ["appends with -", [{ op: "add", path: "/tags/-", value: "c" }], { ...doc, tags: ["a", "b", "c"] }],
    ["removes an array item", [{ op: "remove", path: "/tags/0" }], { ...doc, tags: ["b"] }],
    ["replaces through escaped keys", [{ op: "replace", path: "/a~1b/m~0n", value: 2 }], { ...doc, "a/b": { "m~n": 2 } }],
    ["moves", [{ op: "move", from: "/name", path: "/title" }], { tags: doc.tags, "a/b": doc["a/b"], steps: doc.steps, title: "Welcome" }],
    ["copies", [{ op: "copy", from: "/steps/0", path: "/steps/-" }], { ...doc, steps: [{ id: "mail" }, { id: "mail" }] }],
    ["passes a test", [{ op: "test", path: "/tags", value: ["a", "b"] }], doc],
    ["replaces the whole document", [{ op: "replace", path: "", value: { x: 1 } }], { x: 1 }],
  ])("%s", (_, patch, expected) => {
    expect(applyJsonPatch(doc, patch)).toEqual(expected);
  });

  it.each<[string, AnyPatchOperation[], number]>([
    ["a failed test", [{ op: "test", path: "/name", value: "Other" }], 0],
    ["a path that is not there", [{ op: "replace", path: "/nope", value: 1 }], 0],
    ["an index past the end", [{ op: "add", path: "/tags/3", value: "x" }], 0],
    ["a leading-zero index", [{ op: "remove", path: "/tags/01" }], 0],
    ["a pointer without a slash", [{ op: "add", path: "tags", value: 1 }], 0],
    ["a move into itself", [{ op: "move", from: "/steps", path: "/steps/0/inner" }], 0],
    [
      "the second operation",
      [
        { op: "remove", path: "/name" },
        { op: "remove", path: "/name" },
      ],
      1,
    ],
  ])("refuses %s, naming the operation and leaving the document as it was", (_, patch, index) => {
    const before = structuredClone(doc);
    let error: unknown;
    try {
      applyJsonPatch(doc, patch);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PatchError);
    expect((error as PatchError).index).toBe(index);
    expect(doc).toEqual(before);
  });

  it("applies the patch jsonPatch makes, back to the later document", () => {
    const later = { ...doc, name: "Hello", tags: ["b"], steps: [{ id: "mail", layout: "x" }, { id: "sms" }] };
    expect(applyJsonPatch(doc, jsonPatch(doc, later))).toEqual(later);
  });
});
