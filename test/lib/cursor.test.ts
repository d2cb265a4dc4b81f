import { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { subscriberCursor, encodeCursor as novuSubscriberCursor } from "../../src/features/subscribers/cursor";
import { activityCursor } from "../../src/features/subscribers/activity-schemas";
import { environmentCursor } from "../../src/features/environments/schemas";
import { feedCursor } from "../../src/features/in-app/schemas";
import { messageCursor } from "../../src/features/messages/schemas";
import { suppressionCursor } from "../../src/features/suppressions/schemas";
import { memberCursor, topicCursor } from "../../src/features/topics/schemas";
import { triggerCursor } from "../../src/features/triggers/schemas";
import { variableCursor } from "../../src/features/variables/schemas";
import { workflowCursor } from "../../src/features/workflows/schemas";
import { versionCursor } from "../../src/features/workflows/versions/schemas";
import { base64UrlToText, bytesToBase64, textToBase64Url } from "../../src/lib/base64";
import { cursorCodec, idCursor } from "../../src/lib/cursor";
import { ApiError } from "../../src/lib/errors";

const ID = "msg_0193f0e6c2a77b3c9d4e5f60718293a4";
/** How 0.12 wrote the cursors of messages, triggers and suppressions. */
const btoaLatin1 = (text: string) => btoa(text);

describe("cursorCodec", () => {
  const codec = cursorCodec(z.tuple([z.number().int(), z.string()]));

  it.each([[[0, ""]], [[1_732_752_000_000, ID]], [[1, "a:b:c"]], [[2, "ünïcødé ✓ 🚀 +/="]], [[3, "x".repeat(500)]]] as [
    number,
    string,
  ][][])("round-trips %j through an opaque base64url cursor", (value) => {
    const cursor = codec.encode(value);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(JSON.parse(base64UrlToText(cursor))).toEqual(value);
    expect(codec.decode(cursor)).toEqual(value);
    expect(codec.read(cursor)).toEqual(value);
  });

  it.each([
    ["not base64", "not a cursor!"],
    ["base64 of no JSON", textToBase64Url("1700000000000:msg_1")],
    ["JSON of another shape", textToBase64Url(JSON.stringify({ at: 1, id: "x" }))],
    ["a tuple of the wrong types", textToBase64Url(JSON.stringify(["1", 2]))],
    ["a tuple too long", textToBase64Url(JSON.stringify([1, "x", 3]))],
    ["invalid UTF-8", "_w"],
    ["empty", ""],
    ["too long", textToBase64Url(JSON.stringify([1, "x".repeat(2000)]))],
  ])("refuses %s: null from decode, a 400 bad_request from read", (_name, cursor) => {
    expect(codec.decode(cursor)).toBeNull();
    let thrown: unknown;
    try {
      codec.read(cursor);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect(thrown).toMatchObject({ code: "bad_request", status: 400 });
  });

  it("leaves an absent cursor absent", () => {
    expect(codec.read(undefined)).toBeUndefined();
  });

  it("fails the query's validation (the 422 of a bad parameter) for a cursor that does not decode", () => {
    expect(codec.param.safeParse(codec.encode([1, "x"])).success).toBe(true);
    expect(codec.param.safeParse(undefined).success).toBe(true);
    expect(codec.param.safeParse("garbage").success).toBe(false);
  });

  it("never lets a legacy reader's exception escape", () => {
    const throwing = cursorCodec(z.tuple([z.string()]), {
      legacy: () => {
        throw new Error("boom");
      },
    });
    expect(throwing.decode("anything")).toBeNull();
  });
});

describe("the lists' cursors of 0.12 and before still read (until 0.14)", () => {
  it.each([
    ["topics: the key", topicCursor, "welcome-topic", ["welcome-topic"]],
    ["topic members: the subscriberId", memberCursor, "user-0042", ["user-0042"]],
    ["workflows: the key", workflowCursor, "order.shipped", ["order.shipped"]],
    ["variables: the key", variableCursor, "API_BASE", ["API_BASE"]],
    ["environments: the slug", environmentCursor, "staging", ["staging"]],
    ["versions: the number", versionCursor, "12", [12]],
    ["lists by id: the id", idCursor, ID, [ID]],
    ["the in-app feed: the message id", feedCursor, ID, [ID]],
    ["subscribers: base64url of s:<id>", subscriberCursor, novuSubscriberCursor("ünï-42"), ["ünï-42"]],
    [
      "activity: base64url of a:<time>:<id>",
      activityCursor,
      textToBase64Url("a:1700000000000:act_0193f0e6c2a7"),
      [1_700_000_000_000, "act_0193f0e6c2a7"],
    ],
    ["messages: base64 of <time>:<id>", messageCursor, btoaLatin1(`1700000000000:${ID}`), [1_700_000_000_000, ID]],
    [
      "triggers: base64 of <time>:<transactionId>",
      triggerCursor,
      btoaLatin1("1700000000000:order:42:é"),
      [1_700_000_000_000, "order:42:é"],
    ],
    [
      "suppressions: base64 of the JSON tuple",
      suppressionCursor,
      btoaLatin1(JSON.stringify([1_700_000_000_000, "josé@example.com"])),
      [1_700_000_000_000, "josé@example.com"],
    ],
    [
      "suppressions: standard base64 of UTF-8 JSON",
      suppressionCursor,
      bytesToBase64(new TextEncoder().encode(JSON.stringify([1, "a+b/c@example.com"]))),
      [1, "a+b/c@example.com"],
    ],
  ] as [string, { decode(c: string): unknown }, string, unknown[]][])("%s", (_name, codec, old, value) => {
    expect(codec.decode(old)).toEqual(value);
  });

  it.each([
    ["topics", topicCursor, "Not A Key!"],
    ["versions", versionCursor, "0"],
    ["versions", versionCursor, "abc"],
    ["lists by id", idCursor, "not-an-id"],
    ["the in-app feed", feedCursor, "evt_0193f0e6c2a77b3c9d4e5f60718293a4"],
    ["subscribers", subscriberCursor, btoa("1700000000000:msg_1")],
    ["activity", activityCursor, btoa("a:12:DROP TABLE")],
    ["messages", messageCursor, "nope"],
    ["triggers", triggerCursor, btoa("soon:tx")],
    ["suppressions", suppressionCursor, "not-a-cursor"],
  ] as [string, { decode(c: string): unknown }, string][])("refuses garbage as a cursor of %s: %s", (_name, codec, garbage) => {
    expect(codec.decode(garbage)).toBeNull();
  });

  it("writes every list's cursor in the new format", () => {
    expect(JSON.parse(base64UrlToText(topicCursor.encode(["welcome"])))).toEqual(["welcome"]);
    expect(JSON.parse(base64UrlToText(messageCursor.encode([1, ID])))).toEqual([1, ID]);
  });
});
