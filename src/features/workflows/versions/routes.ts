import { notFound } from "../../../lib/errors";
import { apiRoute, createRouter, json, security } from "../../../lib/openapi";
import { auditContextOf } from "../../audit/record";
import { checkWorkflowTemplates } from "../template-checks";
import { Workflow, WorkflowKeyParam } from "../schemas";
import { versionChanges } from "./changes";
import { etagOf, IfMatchHeader, ifMatchVersions, staleWrite } from "./if-match";
import { jsonPatch } from "./json-patch";
import { DiffQuery, RevertInput, VersionPageQuery, VersionParam, WorkflowDiff, WorkflowVersion, WorkflowVersionList } from "./schemas";
import type { Context } from "hono";
import type { AppEnv } from "../../../env";

export const workflowVersionsRoutes = createRouter();

const tags = ["Workflows"];

const missing = (key: string) => notFound("workflow_not_found", `workflow with key "${key}"`);
const noVersion = (key: string, n: number) => notFound("workflow_version_not_found", `version ${n} of workflow "${key}"`);

/** The live workflow's id: versions belong to it, so a new workflow under a deleted one's key starts afresh. */
async function liveWorkflow(c: Context<AppEnv>, key: string) {
  const workflow = await c.var.data.workflows.find(key);
  if (!workflow) throw missing(key);
  return workflow;
}

async function versionOf(c: Context<AppEnv>, key: string, workflowId: string, n: number) {
  const found = await c.var.data.workflowVersions.find(workflowId, n);
  if (!found) throw noVersion(key, n);
  return found;
}

workflowVersionsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/workflows/{key}/versions",
    tags,
    summary: "List a workflow's versions",
    description: "Newest first. Every create, save (when something changed), revert, promotion and delete writes one, never changed after.",
    security,
    request: { params: WorkflowKeyParam, query: VersionPageQuery },
    responses: { 200: { description: "A page of versions", content: json(WorkflowVersionList) } },
    errors: ["workflow_not_found"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const { limit, cursor } = c.req.valid("query");
    const workflow = await liveWorkflow(c, key);
    return c.json(await c.var.data.workflowVersions.list(workflow.id, limit, cursor), 200);
  },
);

workflowVersionsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/workflows/{key}/versions/{n}",
    tags,
    summary: "Get one version of a workflow",
    security,
    request: { params: VersionParam },
    responses: { 200: { description: "The version, with the full definition as it was", content: json(WorkflowVersion) } },
    errors: ["workflow_not_found", "workflow_version_not_found"],
  }),
  async (c) => {
    const { key, n } = c.req.valid("param");
    const workflow = await liveWorkflow(c, key);
    return c.json(await versionOf(c, key, workflow.id, n), 200);
  },
);

workflowVersionsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/workflows/{key}/diff",
    tags,
    summary: "Compare two versions of a workflow",
    description:
      "`patch` is the RFC 6902 JSON Patch that turns version `from`'s definition into version `to`'s; `changes` says the same for people: the workflow's fields, and steps (matched by id) added, removed, moved or changed with the fields that changed.",
    security,
    request: { params: WorkflowKeyParam, query: DiffQuery },
    responses: { 200: { description: "The difference", content: json(WorkflowDiff) } },
    errors: ["workflow_not_found", "workflow_version_not_found"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const query = c.req.valid("query");
    const workflow = await liveWorkflow(c, key);
    const to = query.to ?? workflow.version;
    const from = query.from ?? Math.max(1, to - 1);
    const [a, b] = await Promise.all([versionOf(c, key, workflow.id, from), versionOf(c, key, workflow.id, to)]);
    return c.json({ from, to, patch: jsonPatch(a.definition, b.definition), changes: versionChanges(a.definition, b.definition) }, 200);
  },
);

workflowVersionsRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/workflows/{key}/revert",
    tags,
    summary: "Restore a version of a workflow",
    description:
      "Saves version `version`'s content as a new version (history is never rewritten). With `If-Match` (the `ETag` you read), a workflow changed since answers 409 instead. As a save, a version naming a layout or rendering a partial that is no longer there (or would make a cycle), or passing `t` a key the default locale no longer has, is refused with 422 and the field path.",
    security,
    request: { params: WorkflowKeyParam, headers: IfMatchHeader, body: { required: true, content: json(RevertInput) } },
    responses: { 200: { description: "The workflow, as restored", content: json(Workflow) } },
    errors: ["workflow_not_found", "workflow_version_not_found", "workflow_version_conflict", "translation_key_missing"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const { version } = c.req.valid("json");
    const workflow = await liveWorkflow(c, key);
    const target = await versionOf(c, key, workflow.id, version);
    // The layouts, partials and translation keys an old version names may have gone since: checked as a save is.
    await checkWorkflowTemplates(c.var.data, target.definition.steps);
    const outcome = await c.var.data.workflows.update(key, target.definition, auditContextOf(c), {
      ifMatch: ifMatchVersions(c.req.header("if-match")),
      action: "reverted",
      summary: `Reverted to version ${version}`,
    });
    if (outcome.status === "missing") throw missing(key);
    if (outcome.status === "stale") throw staleWrite(key, outcome.current, "workflow_version_conflict");
    c.header("etag", etagOf(outcome.value.version));
    return c.json(outcome.value, 200);
  },
);
