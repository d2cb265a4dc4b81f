import { validationError } from "../../lib/errors";
import { apiRoute, createRouter, json, security } from "../../lib/openapi";
import { TestSendRequest, TriggerAccepted, TriggerRequest } from "../triggers/schemas";
import { acceptTrigger } from "../triggers/service";
import { WorkflowKeyParam } from "./schemas";
import { backgroundOf } from "../environments/auth";

export const testSendRoutes = createRouter();

testSendRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/workflows/{key}/test",
    tags: ["Workflows"],
    summary: "Send a test of a workflow, active or not",
    description:
      "A real trigger of the saved workflow (messages go out, and it shows in Activity like any trigger) that works on an inactive workflow too, so a draft can be tried before it is activated. `POST /v1/trigger` still refuses an inactive workflow.",
    security,
    request: { params: WorkflowKeyParam, body: { required: true, content: json(TestSendRequest) } },
    responses: { 202: { description: "Accepted", content: json(TriggerAccepted) } },
    errors: ["workflow_not_found", "topic_not_found", "no_valid_recipients"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    // The trigger's own checks (payload schema, overrides, depth) apply to a test as to any trigger.
    const parsed = TriggerRequest.safeParse({ ...c.req.valid("json"), workflow: key });
    if (!parsed.success) throw validationError(parsed.error.issues);
    const accepted = await acceptTrigger(c.var.data, c.env, parsed.data, undefined, {
      draft: true,
      background: backgroundOf(c),
    });
    return c.json(
      {
        acknowledged: true as const,
        status: "accepted" as const,
        transactionId: accepted.transactionId,
        ...(accepted.invalidRecipients.length ? { invalidRecipients: accepted.invalidRecipients } : {}),
      },
      202,
    );
  },
);
