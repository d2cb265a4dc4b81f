import { z } from "@hono/zod-openapi";
import { cursorCodec, rawKey } from "../../lib/cursor";
import { UNSUBSCRIBE_SCOPES } from "../../contract/unsubscribe";
import { everyLocalized } from "../../engine/locale";
import { templateIssues } from "../../engine/templates";
import { Step } from "../../engine/steps";
import { pageOf, pageQuery } from "../../lib/pagination";
import { payloadSchemaIssues } from "../triggers/payload-schema";
import { treeIssues } from "./tree-checks";
import { placeSteps } from "../../engine/workflow-tree";

const hasBody = (template: { html?: string; text?: string }) => Boolean(template.html?.trim() || template.text?.trim());

/** Email steps whose content, as sent (the base template, and each locale variant over it), has no body. */
function bodilessEmails(steps: Step[]): { path: (string | number)[]; message: string }[] {
  return placeSteps(steps).flatMap(({ step, at }) => {
    if (step.type !== "email") return [];
    const message = "An email needs `html` or `text`; without either it would go out with no body.";
    if (!hasBody(step.template)) return [{ path: [...at, "template", "html"], message }];
    return everyLocalized(step.template, step.locales)
      .filter(([, template]) => !hasBody(template))
      .map(([tag]) => ({ path: [...at, "locales", tag, "html"], message }));
  });
}

const WORKFLOW_KEY = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export const WorkflowInput = z
  .object({
    key: z.string().regex(WORKFLOW_KEY, "Keys use lowercase letters, digits, '.', '-' and '_' (at most 64)."),
    name: z.string().min(1).max(256),
    description: z.string().max(2048).nullable().optional(),
    active: z.boolean().default(true),
    critical: z.boolean().default(false),
    unsubscribe: z.enum(UNSUBSCRIBE_SCOPES).default("workflow").openapi({
      description:
        "What the `List-Unsubscribe` header and `{{ unsubscribe_url }}` of this workflow's emails turn off in one click: `workflow` (its emails), `email` (all email) or `none` (no header; the link is empty). Critical workflows are always `none`.",
    }),
    tags: z.array(z.string().min(1).max(64)).max(20).default([]),
    payloadSchema: z
      .record(z.string(), z.unknown())
      .nullable()
      .optional()
      .openapi({ description: "A JSON Schema (draft 2020-12) every trigger's payload must satisfy." }),
    steps: z
      .array(Step)
      .max(30)
      .openapi({ description: "The steps, run in order; a `branch` step holds further lists. At most 100 steps in the whole tree." }),
  })
  .strict()
  .superRefine((wf, ctx) => {
    for (const issue of treeIssues(wf.key, wf.steps)) ctx.addIssue({ code: "custom", ...issue });
    for (const issue of bodilessEmails(wf.steps)) ctx.addIssue({ code: "custom", ...issue });
    for (const issue of templateIssues(wf.steps)) ctx.addIssue({ code: "custom", ...issue });
    if (wf.payloadSchema) for (const issue of payloadSchemaIssues(wf.payloadSchema)) ctx.addIssue({ code: "custom", ...issue });
  })
  .openapi("WorkflowInput");
export type WorkflowInput = z.infer<typeof WorkflowInput>;

/** Fields the server sets: answered, never taken (`clarion workflows export` leaves them out of its files). */
const readOnly = { readOnly: true } as const;

export const Workflow = z
  .object({
    id: z.string().openapi(readOnly),
    key: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    active: z.boolean(),
    critical: z.boolean(),
    unsubscribe: z.enum(UNSUBSCRIBE_SCOPES),
    tags: z.array(z.string()),
    payloadSchema: z.record(z.string(), z.unknown()).nullable(),
    steps: z.array(Step),
    version: z
      .number()
      .int()
      .openapi({ ...readOnly, description: "Its latest version's number (see `/versions`); the `ETag` is this number, quoted." }),
    createdAt: z.iso.datetime().openapi(readOnly),
    updatedAt: z.iso.datetime().openapi(readOnly),
  })
  .openapi("Workflow");
export type Workflow = z.infer<typeof Workflow>;

export const WorkflowKeyParam = z.object({
  key: z.string().openapi({ param: { name: "key", in: "path" }, example: "order-shipped" }),
});

/** A workflow as the list shows it: with when it was last triggered. */
export const WorkflowSummary = Workflow.extend({
  lastTriggeredAt: z.iso
    .datetime()
    .nullable()
    .openapi({
      ...readOnly,
      description:
        "When a trigger of this workflow was last accepted; null when never. Under steady traffic it may lag by up to 60 s (each instance writes it at most once a minute per workflow).",
    }),
}).openapi("WorkflowSummary");
export type WorkflowSummary = z.infer<typeof WorkflowSummary>;

export const WorkflowList = pageOf(WorkflowSummary).openapi("WorkflowList");
export type WorkflowList = z.infer<typeof WorkflowList>;

const WorkflowKey = z.string().regex(WORKFLOW_KEY);
/** Workflows by key; before 0.13 the cursor was the key itself. */
export const workflowCursor = cursorCodec(z.tuple([WorkflowKey]), { legacy: rawKey(WorkflowKey) });

export const WorkflowPageQuery = pageQuery(100, workflowCursor).extend({
  q: z
    .string()
    .trim()
    .min(1)
    .max(256)
    .optional()
    .openapi({ description: "Only workflows whose key or name contains this (case-insensitive)." }),
  active: z
    .enum(["true", "false"])
    .transform((value) => value === "true")
    .optional()
    .openapi({ description: "Only active (`true`) or inactive (`false`) workflows." }),
});
export type WorkflowListFilter = { q?: string; active?: boolean };
