import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalStack, ROOT, startLocalStack, until } from "../local-stack";
import { type Example, examplesOf, matches, statusPattern, type Unmarked } from "./markdown";

/**
 * The reading order the docs promise their examples work in (docs/README.md says so): every page
 * with an example that talks to Clarion. First email comes last: its Resend integration becomes
 * development's primary, which no later example should send through.
 */
const READING_ORDER = [
  "README.md",
  "docs/getting-started.md",
  "docs/reference/api.md",
  "docs/concepts/workflows-and-steps.md",
  "docs/concepts/idempotency.md",
  "docs/concepts/tracking.md",
  "docs/guides/integrations.md",
  "docs/reference/errors.md",
  "docs/guides/in-app-inbox.md",
  "docs/guides/unsubscribe-and-preferences.md",
  "docs/guides/event-webhooks.md",
  "docs/guides/changing-content-safely.md",
  "docs/guides/layouts-and-translations.md",
  "docs/guides/tenants.md",
  "docs/guides/admin-and-cli.md",
  "docs/guides/agents-and-mcp.md",
  "docs/concepts/security.md",
  "docs/guides/rate-limits.md",
  "docs/guides/retention.md",
  "docs/guides/analytics.md",
  "docs/guides/observability.md",
  "docs/guides/branching-and-waiting.md",
  "docs/guides/first-email.md",
];

const read = (page: string) => readFileSync(join(ROOT, page), "utf8");
const pages = READING_ORDER.map((page) => examplesOf(page, read(page)));
const everyPage = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".md"))
    .map((file) => `docs/${file.replaceAll("\\", "/")}`),
];
const examples: Example[] = pages.flatMap((p) => p.examples);
const unmarked: Unmarked[] = pages.flatMap((p) => p.unmarked);

/**
 * Each block runs in bash as a reader would paste it, in a folder holding `.clarion/keys.json` as
 * `npm start` writes it. `curl` is wrapped to report each answer's status on stderr (its `-w` comes
 * last, so it wins over one the page gives) and keep the last body; exported variables carry over to later blocks, as in one terminal.
 * `npx clarion` is the repository's CLI, as it is for a reader in the repository (this folder is not one).
 */
const PRELUDE = `
[ -f "$DOCS_STATE" ] && . "$DOCS_STATE"
npx() {
  if [ "$1" = clarion ]; then shift; node "$DOCS_CLI" "$@"; else command npx "$@"; fi
}
curl() {
  local out rc
  out=$(mktemp)
  command curl "$@" -w '%{stderr}@@status %{http_code}\\n' > "$out"; rc=$?
  cat "$out"; cp "$out" "$DOCS_LAST"; rm -f "$out"
  return $rc
}
`;
const EPILOGUE = `\nexport -p > "$DOCS_STATE"\n`;

let stack: LocalStack;
let work: string;

beforeAll(async () => {
  stack = await startLocalStack({ environments: ["development", "production"], label: "docs examples" });
  work = mkdtempSync(join(tmpdir(), "clarion-docs-"));
  mkdirSync(join(work, ".clarion"));
  writeFileSync(join(work, ".clarion/keys.json"), JSON.stringify({ ...stack.keys, admin: stack.adminKey }, null, 2));
});

afterAll(async () => {
  await stack?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

async function settle({ transactionId, state }: NonNullable<Example["after"]>) {
  const sent = /^sent=(\d+)$/.exec(state);
  await until(
    `trigger ${transactionId} to be ${state}`,
    async () => {
      const res = await fetch(`${stack.base}/v1/trigger/${transactionId}`, {
        headers: { Authorization: `ApiKey ${stack.keys.development}` },
      });
      const body = (await res.json()) as { status?: string; messages?: { byStatus?: Record<string, number> } };
      const done = sent ? (body.messages?.byStatus?.sent ?? 0) >= Number(sent[1]) : body.status === state;
      return done ? true : undefined;
    },
    60_000,
  );
}

/** The local rate limiter counts per wall-clock minute: a block that counts starts well inside one. */
async function awayFromMinuteEdge() {
  const second = new Date().getSeconds();
  if (second > 40) await new Promise((r) => setTimeout(r, (61 - second) * 1000));
}

describe("the documentation's examples, in reading order, against a fresh server", () => {
  it("marks every curl example of these pages with the answer it gives (or `skip` and why)", () => {
    expect(unmarked).toEqual([]);
  });

  it("runs every page that has an example talking to Clarion", () => {
    const outside = everyPage.filter((page) => !READING_ORDER.includes(page));
    const withExamples = outside.filter((page) => {
      const { examples: runnable, unmarked: left } = examplesOf(page, read(page));
      return runnable.length + left.length > 0;
    });
    expect(withExamples).toEqual([]);
  });

  it.each(examples.map((e) => [`${e.page}:${e.line}`, e] as const))("%s", async (_, example) => {
    if (example.after) await settle(example.after);
    if (example.alignMinute) await awayFromMinuteEdge();
    const script = example.script.replaceAll("http://127.0.0.1:8787", stack.base);
    const last = join(work, "last-body");
    rmSync(last, { force: true });
    const { stdout, stderr } = await promisify(execFile)("bash", ["-c", PRELUDE + script + EPILOGUE], {
      cwd: work,
      env: { ...process.env, DOCS_STATE: join(work, "state.sh"), DOCS_LAST: last, DOCS_CLI: join(ROOT, "bin/clarion.mjs") },
      maxBuffer: 16 * 1024 * 1024,
    });
    const statuses = [...stderr.matchAll(/^@@status (\d{3})$/gm)].map((m) => m[1]);
    const context = `${example.page}:${example.line}\n--- stdout ---\n${stdout.slice(-2000)}\n--- stderr ---\n${stderr.slice(-2000)}`;
    if (example.none) expect(statuses, context).toEqual([]);
    else expect(`${statuses.join(" ")} `, context).toMatch(statusPattern(example.statuses));
    if (example.answer !== undefined) expect(matches(example.answer, JSON.parse(readFileSync(last, "utf8"))), context).toEqual([]);
  });
});
