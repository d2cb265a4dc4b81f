// Writes the generated tables of docs/reference/ from the code that defines them: error codes
// (src/contract/error-codes.ts), providers and their credentials (the registry's zod schemas, as
// `GET /v1/providers` serves them), configuration (src/env.ts) and limits (the constants the
// validators use). Each table sits between markers in a hand-written page, so the prose around it
// stays. `--check` (run by `npm test`) fails when a committed page no longer matches the code.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { createServer } from "vite";

const ROOT = join(import.meta.dirname, "..");
const begin = (name) => `<!-- generated: ${name} (npm run reference; do not edit by hand) -->`;
const end = (name) => `<!-- end generated: ${name} -->`;

/** Markdown table cell: no line breaks, no bare pipes. */
const cell = (text) => String(text).replaceAll("\n", " ").replaceAll("|", "\\|");
const table = (head, rows) =>
  [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.map(cell).join(" | ")} |`)].join("\n");

function errorsTable({ STATUS_BY_CODE, TITLE_BY_CODE, MEANING_BY_CODE }) {
  const codes = Object.keys(STATUS_BY_CODE).sort((a, b) => STATUS_BY_CODE[a] - STATUS_BY_CODE[b] || a.localeCompare(b));
  return table(
    ["Status", "`code`", "Title", "When"],
    codes.map((code) => [STATUS_BY_CODE[code], `\`${code}\``, TITLE_BY_CODE[code], MEANING_BY_CODE[code]]),
  );
}

/** Every property a credentials schema can hold, with whether the object requires it. */
function fieldsOf(schema) {
  const fields = new Map();
  const required = new Set(schema.required ?? []);
  for (const [name, property] of Object.entries(schema.properties ?? {})) fields.set(name, property);
  return [...fields].map(([name, property]) => ({ name, property, required: required.has(name) }));
}

function typeOf(property) {
  if (property.enum) return property.enum.map((v) => `\`${v}\``).join(", ");
  const variants = property.anyOf ?? property.oneOf;
  if (variants) return [...new Set(variants.map(typeOf))].join(" or ");
  if (property.type === "null") return "null";
  return property.type ?? "any";
}

function providersTables(providers) {
  const summary = table(
    ["Channel", "Provider id", "Credentials (`*` required)"],
    providers.map(({ id, channel, schema }) => {
      const fields = fieldsOf(schema);
      return [channel, `\`${id}\``, fields.length ? fields.map((f) => `\`${f.name}\`${f.required ? "\\*" : ""}`).join(", ") : "none"];
    }),
  );
  const details = providers
    .filter(({ schema }) => fieldsOf(schema).length)
    .map(({ id, channel, schema }) => {
      const rows = fieldsOf(schema).map(({ name, property, required }) => [
        `\`${name}\``,
        required ? "yes" : "",
        // `writeOnly` marks a secret: masked in every answer (on a union, any branch marks it).
        property.writeOnly || (property.anyOf ?? []).some((b) => b.writeOnly) ? "yes" : "",
        typeOf(property),
        property.default === undefined ? "" : `\`${JSON.stringify(property.default)}\``,
        property.description ?? "",
      ]);
      return `### \`${id}\` (${channel})\n\n${table(["Field", "Required", "Secret", "Type", "Default", "Description"], rows)}`;
    });
  return `${summary}\n\n${details.join("\n\n")}`;
}

/** The string members of `interface Bindings` in src/env.ts (variables and secrets), with their JSDoc. */
function configuration() {
  const file = join(ROOT, "src/env.ts");
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const node = source.statements.find((s) => ts.isInterfaceDeclaration(s) && s.name.text === "Bindings");
  if (!node) throw new Error("src/env.ts has no `interface Bindings`: update scripts/reference.mjs");
  const group = (name) => name.split("_").slice(0, -1).join("_");
  let previous = { name: "", doc: "" };
  return node.members.filter(ts.isPropertySignature).flatMap((member) => {
    const name = member.name.getText(source);
    const own = ts
      .getJSDocCommentsAndTags(member)
      .map((d) => ts.getTextOfJSDocComment(d.comment) ?? "")
      .join(" ")
      .replace(/\s+/g, " ")
      .trim();
    // An undocumented member shares the comment above it when they are one setting (UPSTASH_REDIS_REST_URL / _TOKEN).
    const doc = own || (group(name) && group(name) === group(previous.name) ? previous.doc : "");
    previous = { name, doc };
    return member.type?.getText(source) === "string" ? [{ name, optional: Boolean(member.questionToken), doc }] : [];
  });
}

function configurationTable(variables, wranglerToml) {
  const set = (name) => new RegExp(`^${name}\\s*=\\s*(.+)$`, "m").exec(wranglerToml)?.[1]?.trim();
  return table(
    ["Variable", "Required", "In wrangler.toml", "Meaning"],
    variables.map((m) => [`\`${m.name}\``, m.optional ? "" : "yes", set(m.name) ? `\`${set(m.name)}\`` : "", m.doc]),
  );
}

const KiB = 1024;
const size = (bytes) => (bytes % (1024 * KiB) === 0 ? `${bytes / (1024 * KiB)} MiB` : `${bytes / KiB} KiB`);
const count = (n) => n.toLocaleString("en-US");

/** Each limit read from the constant (or the OpenAPI schema) the validators use, so a change shows here. */
async function limitsTable(load, openapi) {
  const constant = async (path, name) => {
    const value = (await load(path))[name];
    if (typeof value !== "number") throw new Error(`${path} no longer exports the number ${name}: update scripts/reference.mjs`);
    return value;
  };
  const schemaProperty = (schema, property, keyword, read = (v) => v) => {
    const value = read(openapi.components?.schemas?.[schema]?.properties?.[property]?.[keyword]);
    if (typeof value !== "number")
      throw new Error(`/openapi.json has no ${keyword} on ${schema}.${property}: update scripts/reference.mjs`);
    return value;
  };
  // The pattern's upper bound: `^[A-Za-z0-9._:-]{1,128}$`.
  const maxRepeat = (pattern) => Number(/\{1,(\d+)\}\$$/.exec(pattern ?? "")?.[1] ?? Number.NaN) || undefined;
  const rows = [
    ["Recipients in one trigger's `to`", count(await constant("/src/features/triggers/schemas.ts", "MAX_RECIPIENTS"))],
    ["Events in one bulk trigger", count(await constant("/src/features/triggers/schemas.ts", "MAX_BULK_EVENTS"))],
    ["Subscribers in one `/sub/bulk`", count(await constant("/src/features/subscribers/schemas.ts", "MAX_BULK_SUBSCRIBERS"))],
    [
      "Subscribers added to or removed from a topic per call",
      count(await constant("/src/features/topics/schemas.ts", "MAX_MEMBERS_PER_CALL")),
    ],
    ["A trigger's `payload` (as JSON)", size(await constant("/src/features/triggers/schemas.ts", "MAX_PAYLOAD_BYTES"))],
    ["Request body", size(await constant("/src/lib/middleware/json-body.ts", "REQUEST_BODY_LIMIT"))],
    ["Bulk request body (`/v1/trigger/bulk`, `/sub/bulk`)", size(await constant("/src/lib/middleware/json-body.ts", "BULK_BODY_LIMIT"))],
    ["Status webhook body (`/v1/webhooks/…`)", size(await constant("/src/features/provider-callbacks/routes.ts", "WEBHOOK_BODY_LIMIT"))],
    [
      "`transactionId`",
      `${schemaProperty("TriggerRequest", "transactionId", "pattern", maxRepeat)} characters: letters, digits, \`.\` \`_\` \`:\` \`-\``,
    ],
    ["Steps in a workflow's top-level list", count(schemaProperty("WorkflowInput", "steps", "maxItems"))],
    [
      "Steps in a workflow, counting every branch's paths",
      count(await constant("/src/features/workflows/tree-checks.ts", "MAX_TREE_STEPS")),
    ],
    [
      "Paths of one `branch` step (besides its `default`; `too_many_paths`)",
      count(await constant("/src/engine/steps.ts", "MAX_BRANCH_PATHS")),
    ],
    ["Nesting of `branch` steps (`workflow_too_deep`)", `${await constant("/src/engine/steps.ts", "MAX_BRANCH_DEPTH")} levels`],
    ["A `wait` step's `timeout`", `${await constant("/src/engine/steps.ts", "MAX_WAIT_DAYS")} days`],
    ["A fetch (`http`) step's `timeoutMs`", `${count(await constant("/src/engine/steps.ts", "HTTP_MAX_TIMEOUT_MS"))} ms`],
    [
      "Workflows in one chain of `trigger_workflow` steps (checked at run time: `trigger_depth_exceeded`)",
      count(await constant("/src/engine/steps.ts", "MAX_TRIGGER_CHAIN")),
    ],
    ["Nesting of any request body", `${await constant("/src/lib/json-limits.ts", "MAX_BODY_DEPTH")} levels`],
    [
      "Nesting of a trigger's `payload` and `overrides`, and of a `payloadSchema`",
      `${await constant("/src/lib/json-limits.ts", "MAX_PAYLOAD_DEPTH")} levels`,
    ],
    ["Nesting of `all` / `any` / `not` in a step condition", `${await constant("/src/lib/json-limits.ts", "MAX_CONDITION_DEPTH")} levels`],
    ["An integration's `credentials` (as JSON)", size(await constant("/src/lib/json-limits.ts", "MAX_CREDENTIALS_BYTES"))],
    ["A variable's value", size(await constant("/src/features/variables/schemas.ts", "MAX_VARIABLE_BYTES"))],
    [
      "An email address (subscriber `email`, `from`, `replyTo`)",
      `${await constant("/src/contract/email-address.ts", "MAX_ADDRESS")} characters, at most ${await constant("/src/contract/email-address.ts", "MAX_LOCAL_PART")} before the \`@\` (RFC 5321)`,
    ],
    ["Subscriber search `q`", `${await constant("/src/features/subscribers/schemas.ts", "MAX_QUERY_LENGTH")} characters`],
    ["A tenant's `id` (as a subscriberId)", `${schemaProperty("TenantInput", "id", "maxLength")} characters`],
    ["A tenant's `name`", `${await constant("/src/features/tenants/schemas.ts", "MAX_TENANT_NAME")} characters`],
    ["A tenant's `data` (as JSON)", size(await constant("/src/features/tenants/schemas.ts", "MAX_TENANT_DATA_BYTES"))],
    [
      "Workflows named in a tenant's default `preferences`",
      count(await constant("/src/features/tenants/schemas.ts", "MAX_TENANT_WORKFLOW_DEFAULTS")),
    ],
    ["Context keys on one trigger (`tenant` included)", count(await constant("/src/features/triggers/schemas.ts", "MAX_CONTEXT_KEYS"))],
    ["Tenants one webhook endpoint filters by", count(await constant("/src/features/events/endpoints/schemas.ts", "MAX_ENDPOINT_TENANTS"))],
    [
      "Waiting steps listed by `GET /v1/trigger/{transactionId}`",
      count(await constant("/src/features/triggers/waiting.ts", "MAX_WAITING_LISTED")),
    ],
    [
      "Webhook endpoints per environment",
      `${count(await constant("/src/features/events/endpoints/limits.ts", "DEFAULT_ENDPOINTS_MAX"))} (\`WEBHOOK_ENDPOINTS_MAX\` changes it)`,
    ],
    [
      "Events one webhook endpoint replay queues",
      count(await constant("/src/features/events/endpoints/replay-repository.ts", "REPLAY_LIMIT")),
    ],
    [
      "Tests and replays of one webhook endpoint",
      await (async () => {
        const rate = (await load("/src/lib/rate-limit/policy.ts")).DEFAULT_RATES?.webhookActions;
        if (typeof rate?.limit !== "number") throw new Error("policy.ts has no DEFAULT_RATES.webhookActions: update scripts/reference.mjs");
        return `${count(rate.limit)} per ${rate.period} s (\`RATE_LIMITS\` \`webhookActions\` changes it)`;
      })(),
    ],
  ];
  return table(["What", "Limit"], rows);
}

/** Replaces the text between a page's markers; a page without them is an error, not a silent skip. */
function fill(text, name, content, page) {
  const from = text.indexOf(begin(name));
  const to = text.indexOf(end(name));
  if (from < 0 || to < from) throw new Error(`${page} lacks the markers for "${name}": ${begin(name)} … ${end(name)}`);
  return `${text.slice(0, from + begin(name).length)}\n\n${content}\n\n${text.slice(to)}`;
}

async function generate() {
  const server = await createServer({
    configFile: false,
    root: ROOT,
    server: { middlewareMode: true, hmr: false, ws: false },
    appType: "custom",
    logLevel: "error",
  });
  try {
    const load = (path) => server.ssrLoadModule(path);
    const integrations = await load("/src/features/integrations/routes.ts");
    const { credentialsJsonSchema } = await load("/src/features/integrations/credentials.ts");
    const providers = integrations
      .registeredProviders()
      .map((adapter) => ({ id: adapter.id, channel: adapter.channel, schema: credentialsJsonSchema(adapter) }))
      .sort((a, b) => a.channel.localeCompare(b.channel) || a.id.localeCompare(b.id));
    const { createApp } = await load("/src/app.ts");
    const openapi = await (await createApp().request("/openapi.json")).json();
    return {
      "docs/reference/errors.md": { errors: errorsTable(await load("/src/contract/error-codes.ts")) },
      "docs/reference/providers.md": { providers: providersTables(providers) },
      "docs/reference/configuration.md": {
        configuration: configurationTable(configuration(), readFileSync(join(ROOT, "wrangler.toml"), "utf8")),
      },
      "docs/reference/limits.md": { limits: await limitsTable(load, openapi) },
    };
  } finally {
    await server.close();
  }
}

const check = process.argv.includes("--check");
const stale = [];
for (const [page, sections] of Object.entries(await generate())) {
  const path = join(ROOT, page);
  const current = readFileSync(path, "utf8");
  let text = current;
  for (const [name, content] of Object.entries(sections)) text = fill(text, name, content, page);
  if (text === current) continue;
  if (check) stale.push(page);
  else {
    writeFileSync(path, text);
    console.log(`wrote ${page}`);
  }
}
if (stale.length) {
  console.error(`${stale.join(", ")} ${stale.length > 1 ? "are" : "is"} out of date with the code: run \`npm run reference\` and commit.`);
  process.exit(1);
}
