import { z } from "@hono/zod-openapi";
import { SubscriberInput } from "../../contract/recipients";
import { CONDITION_OPS } from "../../engine/steps";

const SampleSubscriber = SubscriberInput.omit({ channels: true })
  .partial()
  .openapi("PreviewSubscriber", { description: "A sample subscriber; its `locale` picks localised templates." });

export const PreviewRequest = z
  .object({
    payload: z.record(z.string(), z.unknown()).default({}),
    subscriber: SampleSubscriber.default({}),
    actor: z
      .union([z.string().min(1).max(256), SampleSubscriber])
      .nullable()
      .default(null),
    steps: z
      .record(
        z.string(),
        z
          .object({
            status: z.string().min(1).max(64),
            count: z.number().int().min(0).optional(),
            path: z
              .string()
              .min(1)
              .max(64)
              .optional()
              .openapi({ description: "A branch: the path taken instead of the one the sample picks." }),
            outcome: z.enum(["matched", "timed_out"]).optional().openapi({ description: "A wait: how it ended (default `matched`)." }),
          })
          .strict(),
      )
      .default({})
      .openapi({
        description:
          "Assumed outcomes of earlier steps, as `steps.<id>.status` reads them. A step not named here counts as `sent`, or `skipped` when it would not run for the sample.",
        example: { mail: { status: "failed" } },
      }),
    responses: z
      .record(
        z.string(),
        z
          .object({
            status: z.number().int().min(100).max(599),
            headers: z.record(z.string(), z.string()).optional(),
            body: z.unknown().optional(),
          })
          .strict(),
      )
      .default({})
      .openapi({
        description:
          "Sample answers of fetch (`http`) steps by step id, read by later steps as `steps.<id>.response.*`. A preview never calls a fetch step's URL; one with no sample here has no response.",
        example: { account: { status: 200, body: { plan: "pro" } } },
      }),
    overrides: z.record(z.string(), z.unknown()).optional().openapi({ description: "As in a trigger: applied over the rendered content." }),
  })
  .strict()
  .openapi("PreviewRequest");
export type PreviewRequest = z.infer<typeof PreviewRequest>;

/**
 * A workflow being edited and not saved yet: only what a preview reads. Lenient on purpose: no key
 * rules, and each step is checked on its own, so a half-written step shows its problem on its own
 * card while the others still render.
 */
export const DraftWorkflow = z
  .object({
    key: z.string().max(64).default("draft"),
    name: z.string().max(256).default(""),
    steps: z
      .array(
        z.record(z.string(), z.unknown()).openapi({ description: "A step as in a workflow (see Step); a branch's paths hold steps too." }),
      )
      .max(30),
  })
  .strict()
  .openapi("DraftWorkflow");
export type DraftWorkflow = z.infer<typeof DraftWorkflow>;

export const DraftPreviewRequest = PreviewRequest.extend({ workflow: DraftWorkflow }).strict().openapi("DraftPreviewRequest");
export type DraftPreviewRequest = z.infer<typeof DraftPreviewRequest>;

export const PreviewConditionLeaf = z
  .object({
    field: z.string(),
    op: z.enum(CONDITION_OPS),
    value: z.unknown().optional(),
    actual: z.unknown().optional().openapi({ description: "The field's value; absent when the field is missing." }),
    result: z.boolean(),
  })
  .openapi("PreviewConditionLeaf");
export type PreviewConditionLeaf = z.infer<typeof PreviewConditionLeaf>;

export const PreviewStep = z
  .object({
    id: z.string(),
    type: z.string(),
    condition: z
      .object({ result: z.boolean(), leaves: z.array(PreviewConditionLeaf) })
      .nullable()
      .openapi({ description: "Null when the step has no condition." }),
    wouldRun: z
      .boolean()
      .openapi({ description: "Whether the step would run for this sample: it is on the sample's path and its condition holds." }),
    onPath: z.boolean().openapi({
      description: "Whether the sample reaches the step: every branch around it took the path it sits on (always true outside branches).",
    }),
    path: z
      .string()
      .nullable()
      .optional()
      .openapi({ description: "Branch steps: the id of the path the sample takes (`default` for the default), null when none runs." }),
    response: z
      .object({ status: z.number().int(), headers: z.record(z.string(), z.string()), body: z.unknown() })
      .optional()
      .openapi({ description: "Fetch steps: the sample response from the request's `responses`, as later steps read it." }),
    assumedStatus: z
      .string()
      .openapi({ description: "What later steps read as `steps.<id>.status` for this step in the preview.", example: "sent" }),
    locale: z.string().nullable().openapi({ description: "The localised variant used; null for the default template." }),
    content: z.record(z.string(), z.unknown()).optional().openapi({
      description:
        "Channel steps: the rendered content, overrides applied. Fetch steps: the rendered request (method, url, headers, body); trigger_workflow: the workflow and rendered payload; update_subscriber: the rendered changes. Secret variables are masked.",
    }),
    error: z
      .object({ code: z.enum(["template_error", "invalid_step"]), message: z.string() })
      .optional()
      .openapi({ description: "`invalid_step` only in the preview of an unsaved workflow: the step is not valid yet and was left out." }),
  })
  .openapi("PreviewStep");
export type PreviewStep = z.infer<typeof PreviewStep>;

export const PreviewResponse = z
  .object({
    workflow: z.string(),
    steps: z.array(PreviewStep).openapi({
      description:
        "Every step of the tree in run order: a branch, then its paths' steps (paths in order, the default last), then what follows it.",
    }),
  })
  .openapi("PreviewResponse");
export type PreviewResponse = z.infer<typeof PreviewResponse>;
