import { describe, expect, it } from "vitest";
import type { TriggerStatusView } from "../../src/features/messages/schemas";
import { createSandboxEnvironment, createWorkflow, workflowBody } from "../factories";
import { messageDetail } from "../e2e/helpers";
import { deliveredMessages, triggerDelivered } from "../held-triggers";
import { api } from "../request";

describe("workflowVersion on messages and triggers", () => {
  it("shows the version each trigger was accepted with, on its messages and its detail", async () => {
    const { key } = await createSandboxEnvironment();
    const workflow = await createWorkflow(key);
    const first = await triggerDelivered(key, { workflow: workflow.key, to: { subscriberId: "ada", email: "ada@example.com" } });
    const edited = workflowBody({ key: workflow.key, name: "Edited" });
    expect((await api(key, "PUT", `/v1/workflows/${workflow.key}`, edited)).status).toBe(200);
    const second = await triggerDelivered(key, { workflow: workflow.key, to: { subscriberId: "ada", email: "ada@example.com" } });

    const [before] = await deliveredMessages(key, first, 1);
    const [after] = await deliveredMessages(key, second, 1);
    expect(before?.workflowVersion).toBe(1);
    expect(after?.workflowVersion).toBe(2);
    expect((await messageDetail(key, after!.id)).workflowVersion).toBe(2);
    const detail = await api<TriggerStatusView>(key, "GET", `/v1/trigger/${first}`);
    expect(detail.body.workflowVersion).toBe(1);
    const list = await api<{ data: { workflowVersion: number | null }[] }>(key, "GET", `/v1/messages?workflow=${workflow.key}`);
    expect(list.body.data.map((m) => m.workflowVersion).sort()).toEqual([1, 2]);
  });
});
