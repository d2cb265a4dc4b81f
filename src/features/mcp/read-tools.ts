import { z } from "@hono/zod-openapi";
import { ApiError } from "../../lib/errors";
import { RunsQuery } from "../messages/run-schemas";
import { MessageList, MessageQuery, TriggerStatusView } from "../messages/schemas";
import { redacted, triggerView } from "../messages/trigger-view";
import { SubscriberDetail, SubscriberList, SubscriberQuery } from "../subscribers/schemas";
import { Workflow, WorkflowList, WorkflowPageQuery } from "../workflows/schemas";
import { explainMessage, MessageExplanation } from "./explain";
import { defineTool } from "./tool";

// The read scope: what the API's GET routes answer, from the same services, shaped as they are.

const listWorkflows = defineTool({
  name: "list_workflows",
  scope: "read",
  title: "List workflows",
  description: "A page of the environment's workflows by key, with when each was last triggered. `q` filters by key or name.",
  input: WorkflowPageQuery.omit({ active: true }).extend({
    active: z.boolean().optional().describe("Only active (true) or inactive (false) workflows."),
  }),
  output: WorkflowList,
  run: ({ limit, cursor, q, active }, { caller }) => caller.data.workflows.list(limit, cursor, { q, active }),
});

const getWorkflow = defineTool({
  name: "get_workflow",
  scope: "read",
  title: "Get a workflow",
  description: "A workflow's current definition: steps, conditions, templates, payload schema, version.",
  input: z.object({ key: z.string().min(1).max(64) }),
  output: Workflow,
  async run({ key }, { caller }) {
    const workflow = await caller.data.workflows.find(key);
    if (!workflow) throw new ApiError("workflow_not_found", `No workflow with key "${key}" in this environment.`);
    return workflow;
  },
});

const listSubscribers = defineTool({
  name: "list_subscribers",
  scope: "read",
  title: "List subscribers",
  description: "A page of subscribers, by exact email or phone, or by part of their id or name (`q`).",
  input: SubscriberQuery,
  output: SubscriberList,
  run: (query, { caller }) => caller.data.subscribers.list(query),
});

const getSubscriber = defineTool({
  name: "get_subscriber",
  scope: "read",
  title: "Get a subscriber",
  description: "A subscriber's profile, channel addresses (push tokens and webhook URLs masked), preferences and topics.",
  input: z.object({ subscriberId: z.string().min(1).max(256) }),
  output: SubscriberDetail,
  async run({ subscriberId }, { caller }) {
    const found = await caller.data.subscribers.find(subscriberId);
    if (!found) throw new ApiError("subscriber_not_found", `No subscriber "${subscriberId}" in this environment.`);
    return found;
  },
});

const listMessages = defineTool({
  name: "list_messages",
  scope: "read",
  title: "List messages",
  description: "Messages, newest first, filtered by trigger, subscriber, workflow, channel, status, provider, tenant or time.",
  input: MessageQuery,
  output: MessageList,
  run: (query, { caller }) => redacted(caller.data, caller.data.messages.list(query)),
});

const getTrigger = defineTool({
  name: "get_trigger",
  scope: "read",
  title: "Get a trigger",
  description:
    "A trigger's status and messages by status, the steps waiting (delays, digests, quiet hours), and per recipient the path its run took and each step's outcome, paged by recipient.",
  input: RunsQuery.extend({ transactionId: z.string().min(1).max(128) }),
  output: TriggerStatusView,
  async run({ transactionId, ...query }, { env, caller }) {
    const view = await triggerView(env, caller.data, transactionId, query);
    if (!view)
      throw new ApiError("transaction_not_found", `No recorded trigger with transactionId "${transactionId}" in this environment.`);
    return view;
  },
});

const explain = defineTool({
  name: "explain_message",
  scope: "read",
  title: "Explain a message",
  description: "Why a message was skipped, failed, delayed or not sent yet, in words, read from its timeline.",
  input: z.object({ messageId: z.string().min(1).max(128) }),
  output: MessageExplanation,
  async run({ messageId }, { caller }) {
    const message = await redacted(caller.data, caller.data.messages.find(messageId));
    if (!message) throw new ApiError("message_not_found", `No message ${messageId} in this environment.`);
    return explainMessage(message);
  },
});

export const readTools = [listWorkflows, getWorkflow, listSubscribers, getSubscriber, listMessages, getTrigger, explain];
