// The Workflows area's queries, and the writes beside the keys they refresh (a workflow's
// history has its own, in history/queries.ts).
import { infiniteQueryOptions, mutationOptions, type QueryClient, queryOptions } from "@tanstack/react-query";
import { type Api, unwrap } from "../../api/client";
import { allPages, CURSOR_PAGES } from "../../api/cursor-pages";
import type { components } from "../../api/openapi";
import { etagOf, historyKey, revertTo } from "./history/queries";
import { inputOf, type Workflow, type WorkflowInput } from "./model";

type DraftPreviewRequest = components["schemas"]["DraftPreviewRequest"];

/** The lists of workflows (the page, the pickers): refreshed by every write. */
export const WORKFLOWS = ["workflows"] as const;

export const workflowsQuery = (api: Api, filters: { q?: string; active?: "true" | "false" }) =>
  infiniteQueryOptions({
    queryKey: [...WORKFLOWS, "list", filters],
    queryFn: ({ pageParam }) => unwrap(api.GET("/v1/workflows", { params: { query: { ...filters, cursor: pageParam, limit: 50 } } })),
    ...CURSOR_PAGES,
  });

/** Every workflow, each page read: the subscriber's preferences offer a row for each. */
export const allWorkflowsQuery = (api: Api) =>
  queryOptions({
    queryKey: [...WORKFLOWS, "all"],
    queryFn: () => allPages((cursor) => unwrap(api.GET("/v1/workflows", { params: { query: { limit: 100, cursor } } }))),
  });

/** The first hundred, for a picker. */
export const workflowPickQuery = (api: Api) =>
  queryOptions({
    queryKey: [...WORKFLOWS, "pick"],
    queryFn: () => unwrap(api.GET("/v1/workflows", { params: { query: { limit: 100 } } })),
  });

/**
 * One workflow as the editor holds it: apart from the lists, so refreshing them after a save
 * does not reload the draft under the editor.
 */
export const workflowQuery = (api: Api, key: string) =>
  queryOptions({
    queryKey: ["workflow", key],
    queryFn: () => unwrap(api.GET("/v1/workflows/{key}", { params: { path: { key } } })),
  });

export const previewQuery = (api: Api, request: string | null) =>
  queryOptions({
    queryKey: ["workflow-preview", request],
    queryFn: ({ signal }) =>
      unwrap(api.POST("/v1/workflows/preview", { body: JSON.parse(request ?? "{}") as DraftPreviewRequest, signal })),
  });

/** Every write names the version the editor read: a workflow saved by someone else since answers 412 instead of being overwritten. */
const readAt = (wf: Workflow) => ({ path: { key: wf.key }, header: { "if-match": etagOf(wf.version) } });

export const createWorkflow = (api: Api, body: WorkflowInput) => unwrap(api.POST("/v1/workflows", { body }));

export const updateWorkflow = (api: Api, wf: Workflow, body: WorkflowInput) =>
  unwrap(api.PUT("/v1/workflows/{key}", { params: readAt(wf), body }));

export const deleteWorkflow = (api: Api, wf: Workflow) => unwrap(api.DELETE("/v1/workflows/{key}", { params: readAt(wf) }));

export const readWorkflow = (api: Api, key: string) => unwrap(api.GET("/v1/workflows/{key}", { params: { path: { key } } }));

/** `tenant`: the test is sent as that tenant's (its brand, defaults and integrations). */
export const sendTest = (api: Api, key: string, to: string, payload: Record<string, unknown>, tenant?: string) =>
  unwrap(api.POST("/v1/workflows/{key}/test", { params: { path: { key } }, body: { to, payload, ...(tenant ? { tenant } : {}) } }));

/** A workflow as a write answered it: the editor's copy is the answer; the lists and its history refresh. */
export function storeWorkflow(client: QueryClient, api: Api, wf: Workflow): void {
  client.setQueryData(workflowQuery(api, wf.key).queryKey, wf);
  void client.invalidateQueries({ queryKey: WORKFLOWS });
  void client.invalidateQueries({ queryKey: historyKey(wf.key) });
}

/** Creates the workflow, or saves `saved` at the version the editor read. */
export const saveWorkflowMutation = (api: Api, saved: Workflow | null) =>
  mutationOptions({
    mutationFn: (input: WorkflowInput) => (saved ? updateWorkflow(api, saved, input) : createWorkflow(api, input)),
    onSuccess: (wf, _input, _result, { client }) => storeWorkflow(client, api, wf),
  });

/** Activates an inactive workflow, deactivates an active one. */
export const toggleWorkflowMutation = (api: Api) =>
  mutationOptions({
    mutationFn: (wf: Workflow) => updateWorkflow(api, wf, inputOf(wf, { active: !wf.active })),
    onSuccess: (wf, _input, _result, { client }) => storeWorkflow(client, api, wf),
  });

export const deleteWorkflowMutation = (api: Api) =>
  mutationOptions({
    mutationFn: (wf: Workflow) => deleteWorkflow(api, wf),
    onSuccess: (_answer, _wf, _result, { client }) => void client.invalidateQueries({ queryKey: WORKFLOWS }),
  });

/** The workflow as saved now (someone else's version, after a conflict). */
export const reloadWorkflowMutation = (api: Api) =>
  mutationOptions({
    mutationFn: (key: string) => readWorkflow(api, key),
    onSuccess: (wf, _key, _result, { client }) => storeWorkflow(client, api, wf),
  });

/** Restores version `n` of `wf` as a new version, at the version the editor loaded; stored as a save is. */
export const revertWorkflowMutation = (api: Api, wf: Workflow) =>
  mutationOptions({
    mutationFn: (n: number) => revertTo(api, wf.key, n, wf.version),
    onSuccess: (restored, _n, _result, { client }) => storeWorkflow(client, api, restored),
  });
