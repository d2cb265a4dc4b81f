import { describe, expect, it } from "vitest";
import type { InAppRow } from "../../src/db/queries/in-app";
import { novuInboxMessage } from "../../src/durable-objects/inbox-socket/frames";

const row = (content: InAppRow["content"]): InAppRow => ({
  id: "msg_1",
  environmentId: "env_1",
  subscriberId: "user-1",
  transactionId: "tx_1",
  workflowKey: "wf",
  stepId: "bell",
  content,
  tags: [],
  seenAt: null,
  readAt: null,
  archivedAt: null,
  snoozedUntil: null,
  completedAction: null,
  createdAt: new Date(0),
  updatedAt: new Date(0),
});

describe("the socket's notification_received message", () => {
  it("pushes no unsafe URL of a notification stored before sends left them out", () => {
    const message = novuInboxMessage(
      row({
        body: "Hi",
        avatar: "javascript:alert(1)",
        redirect: { url: "javascript:alert(2)" },
        primaryAction: { label: "Go", redirect: { url: "javascript:alert(3)" } },
        secondaryAction: { label: "Orders", redirect: { url: "/orders" } },
      }),
    );
    expect(JSON.stringify(message)).not.toContain("javascript:");
    expect(message.cta.data).toEqual({});
    expect(message.cta.action.buttons).toEqual([
      { type: "primary", content: "Go", url: undefined, target: undefined },
      { type: "secondary", content: "Orders", url: "/orders", target: undefined },
    ]);
  });
});
