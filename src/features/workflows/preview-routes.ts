import { createDb, type Db } from "../../db/client";
import { ApiError } from "../../lib/errors";
import { apiRoute, createRouter, json, security } from "../../lib/openapi";
import { loadTemplateVariables } from "../../db/queries/variables";
import { variablesRepository } from "../variables/repository";
import { SECRET_MASK } from "../variables/schemas";
import { maskSecrets, previewWorkflow } from "./preview";
import { PreviewRequest, PreviewResponse } from "./preview-schemas";
import { workflowsRepository } from "./repository";
import { WorkflowKeyParam } from "./schemas";

export const previewRoutes = createRouter();

/** Keys of the environment's secret variables, whose clear values must not leave in a preview. */
async function secretKeys(db: Db, environmentId: string): Promise<string[]> {
  const repo = variablesRepository(db, environmentId, undefined);
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await repo.list(100, cursor);
    keys.push(...page.data.filter((v) => v.secret).map((v) => v.key));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return keys;
}

previewRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/workflows/{key}/preview",
    tags: ["Workflows"],
    summary: "Preview a workflow",
    description:
      "Evaluates every step's condition and renders every channel step for a sample payload and subscriber, without sending anything.",
    security,
    request: { params: WorkflowKeyParam, body: { required: true, content: json(PreviewRequest) } },
    responses: { 200: { description: "Each step's condition and content", content: json(PreviewResponse) } },
    errors: ["workflow_not_found"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const input = c.req.valid("json");
    const environmentId = c.get("environmentId");
    const db = createDb(c.env.DB);
    const [workflow, vars, secrets] = await Promise.all([
      workflowsRepository(db, environmentId).find(key),
      loadTemplateVariables(db, environmentId, c.env.ENCRYPTION_KEY),
      secretKeys(db, environmentId),
    ]);
    if (!workflow) throw new ApiError("workflow_not_found", `No workflow with key "${key}" in this environment.`);
    const preview = previewWorkflow(workflow, input, vars, new Date());
    const secretValues = secrets.flatMap((k) => (vars[k] === undefined ? [] : [vars[k]]));
    return c.json(maskSecrets(preview, secretValues, SECRET_MASK), 200);
  },
);
