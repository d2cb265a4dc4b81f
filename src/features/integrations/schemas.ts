import { z } from "@hono/zod-openapi";
import { byteLength } from "../../lib/crypto";
import { MAX_CREDENTIALS_BYTES } from "../../lib/json-limits";
import { providerFor } from "../../providers/registry";
import { PROVIDER_CHANNELS } from "../../engine/steps";
import { credentialIssues, MASK } from "./credentials";
import { idCursor } from "../../lib/cursor";
import { pageOf, pageQuery } from "../../lib/pagination";
import { TenantId } from "../tenants/schemas";

const ProviderId = z
  .string()
  .superRefine((id, ctx) => {
    if (!providerFor(id)) ctx.addIssue({ code: "custom", message: `Unknown provider "${id}": GET /v1/providers lists them.` });
  })
  .openapi({ description: "A provider id from `GET /v1/providers`; the integration's channel follows from it.", example: "resend" });

export const IntegrationSettings = z
  .object({
    timeoutMs: z.number().int().min(100).max(60_000).optional().openapi({
      description:
        "How long one send may take. Past it the outcome is unknown (the provider may have sent): retried only through a provider that deduplicates, else the message fails with `outcome_unknown`. Default 10000.",
    }),
    maxAttempts: z
      .number()
      .int()
      .min(1)
      .max(10)
      .optional()
      .openapi({ description: "Attempts through this integration before failing over to the next one. Default 3." }),
    failoverOnTimeout: z.boolean().optional().openapi({
      description:
        "After a timeout, retry and fail over as after an error, accepting that the message may be sent twice. Default false: see docs/concepts/delivery-guarantees.md, on timeouts.",
    }),
  })
  .loose()
  .openapi("IntegrationSettings");

/** The fields as a client writes them; input and update derive their defaults and optionality from these. */
const IntegrationFields = z.object({
  provider: ProviderId,
  name: z.string().trim().min(1).max(256),
  active: z.boolean(),
  primary: z
    .boolean()
    .openapi({ description: "Tried first for its channel. Setting it clears `primary` on the channel's other integrations." }),
  priority: z.number().int().min(-1_000_000).max(1_000_000).openapi({ description: "Failover order after the primary: lower goes first." }),
  credentials: z
    .record(z.string(), z.unknown())
    .refine(
      (value) => byteLength(JSON.stringify(value)) <= MAX_CREDENTIALS_BYTES,
      `Credentials take at most ${MAX_CREDENTIALS_BYTES / 1024} KB as JSON.`,
    )
    .openapi({
      description:
        "Shape per provider (`GET /v1/providers`). Encrypted at rest; its secrets (the fields the provider's schema marks `writeOnly`) are masked in every answer. At most 64 KB as JSON.",
    }),
  settings: IntegrationSettings,
  baseUrl: z
    .url({ protocol: /^https?$/, error: "An http:// or https:// URL." })
    .nullable()
    .openapi({ description: "Where to send instead of the provider's API: an EU region, a proxy, a self-hosted server." }),
  tenantId: TenantId.nullable().openapi({
    description:
      "The tenant whose messages go through this integration first (its own sending domain), before the environment's. " +
      "Never used for another tenant's message or one without a tenant. Null: the environment's. Must name an existing tenant.",
    example: "acme",
  }),
});

export const IntegrationInput = IntegrationFields.extend({
  name: IntegrationFields.shape.name.optional().openapi({ description: "Defaults to the provider id." }),
  active: IntegrationFields.shape.active.default(true),
  primary: IntegrationFields.shape.primary.default(false),
  priority: IntegrationFields.shape.priority.default(0),
  settings: IntegrationSettings.default({}),
  baseUrl: IntegrationFields.shape.baseUrl.optional(),
  tenantId: IntegrationFields.shape.tenantId.optional(),
})
  .strict()
  .superRefine((input, ctx) => {
    const adapter = providerFor(input.provider);
    if (!adapter) return; // reported on `provider`
    for (const issue of credentialIssues(adapter, input.credentials)) ctx.addIssue({ code: "custom", ...issue });
  })
  .openapi("IntegrationInput");
export type IntegrationInput = z.infer<typeof IntegrationInput>;

export const IntegrationUpdate = IntegrationFields.omit({ provider: true })
  .partial()
  .strict()
  .openapi("IntegrationUpdate", {
    description:
      "Fields left out keep their value. `credentials`, when given, replace the stored ones and are validated again; " +
      "a value sent back exactly as an answer masked it keeps the stored value. Pointing `baseUrl` at a new host needs the secrets in full. " +
      "`tenantId: null` gives a tenant's integration back to the environment.",
  });
export type IntegrationUpdate = z.infer<typeof IntegrationUpdate>;

export const Integration = IntegrationFields.extend({
  id: z.string(),
  provider: z.string(),
  channel: z.enum(PROVIDER_CHANNELS),
  credentials: z.record(z.string(), z.unknown()).openapi({
    description: `Secrets (\`writeOnly\` in the provider's schema, and any field it does not describe) show at most their first four characters, then "${MASK}"; other settings (a sender, an account id, a public URL) are shown as stored.`,
  }),
  settings: z.record(z.string(), z.unknown()),
  baseUrl: z.string().nullable(),
  tenantId: z.string().nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
}).openapi("Integration");
export type Integration = z.infer<typeof Integration>;

export const IntegrationIdParam = z.object({
  id: z.string().openapi({ param: { name: "id", in: "path" }, example: "int_019a2b3c4d5e7f8091a2b3c4d5e6f708" }),
});

export const IntegrationListQuery = pageQuery(100, idCursor).extend({
  channel: z.enum(PROVIDER_CHANNELS).optional(),
  tenant: TenantId.optional().openapi({ description: "Only this tenant's integrations." }),
});

export const IntegrationList = pageOf(Integration).openapi("IntegrationList");
export type IntegrationList = z.infer<typeof IntegrationList>;

export const IntegrationCheck = z
  .object({
    ok: z.boolean(),
    mode: z
      .enum(["remote", "form"])
      .openapi({ description: "`remote`: the provider accepted a harmless call. `form`: only the credentials' shape was checked." }),
    detail: z.string(),
  })
  .openapi("IntegrationCheck");
export type IntegrationCheck = z.infer<typeof IntegrationCheck>;

export const Provider = z
  .object({
    id: z.string(),
    channel: z.enum(PROVIDER_CHANNELS),
    credentials: z
      .record(z.string(), z.unknown())
      .openapi({ description: "JSON Schema (draft 2020-12) of the credentials an integration needs." }),
  })
  .openapi("Provider");
export type Provider = z.infer<typeof Provider>;

export const ProviderList = z.object({ data: z.array(Provider) }).openapi("ProviderList");
export type ProviderList = z.infer<typeof ProviderList>;
