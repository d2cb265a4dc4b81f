// The `clarion` command: argument parsing and output. Every change goes through the API
// (the admin API for environments and keys, an environment's key for workflows), never SQL.
import { parseArgs } from "node:util";
import { ClarionError, client, listAll } from "./client.mjs";
import { exportWorkflows, importWorkflows } from "./workflows.mjs";
import { promote, promotionLines } from "./promote.mjs";
import { pullTranslations, pushTranslations } from "./translations.mjs";
import { changeLines, pull, push } from "./files.mjs";
import { writeTypes } from "./types.mjs";

export const USAGE = `Usage: clarion <command> [options]

  envs list
  envs create <slug> [--name <name>]
  keys list --env <slug> [--all]
  keys create --env <slug> [--name <name>] [--expires-at <ISO date>] [--kind mcp --scopes read,trigger,propose,manage]
  keys revoke <key id>
  keys rotate <key id> [--overlap-hours <hours, default 24>]
  workflows export [--dir <folder, default ./workflows>]
  workflows import <file or folder>...
  translations pull <folder>        one <locale>.json per locale, nested keys
  translations push <folder>        each <locale>.json replaces that locale's keys
  promote --from <slug> --to <slug> [--workflow <key>]... [--dry-run]
  pull <folder>                     workflows, layouts, partials, brand and translations as files
  diff <folder>                     what push would change; exit code 1 when something would
  push <folder> [--dry-run] [--prune]   all the files in one request, all or nothing
  types [--out <file, default clarion.d.ts>]   payload types of every workflow, for trigger()

Options:
  --url <url>          Clarion's address (CLARION_URL, default http://127.0.0.1:8787)
  --admin-key <key>    the admin credential for envs and keys (CLARION_ADMIN_KEY)
  --key <key>          an environment's API key for workflows (CLARION_KEY, or CLARION_API_KEY)
  --dry-run            promote, push: say what would change, change nothing
  --prune              diff, push: also remove what the folder does not hold
  --out <file>         types: where to write
  --json               print the API's JSON answer
  -h, --help           this text

A key is shown once, when it is created or rotated: store it then.`;

const OPTIONS = /** @type {const} */ ({
  url: { type: "string" },
  "admin-key": { type: "string" },
  key: { type: "string" },
  env: { type: "string" },
  name: { type: "string" },
  "expires-at": { type: "string" },
  kind: { type: "string" },
  scopes: { type: "string" },
  "overlap-hours": { type: "string" },
  dir: { type: "string" },
  from: { type: "string" },
  to: { type: "string" },
  workflow: { type: "string", multiple: true },
  "dry-run": { type: "boolean" },
  prune: { type: "boolean" },
  out: { type: "string" },
  all: { type: "boolean" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
});

/** A mistake in the command line: printed with the usage, exit code 2. */
class UsageError extends Error {}

/**
 * @typedef {{ env?: Record<string, string | undefined>, fetch?: typeof fetch, out?: (line: string) => void, err?: (line: string) => void }} Io
 */

/**
 * @param {string[]} argv
 * @param {Io} [io]
 * @returns {Promise<number>} the exit code
 */
export async function main(argv, io = {}) {
  const env = io.env ?? process.env;
  const out = io.out ?? ((line) => console.log(line));
  const err = io.err ?? ((line) => console.error(line));
  try {
    const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
    const [group, action, ...rest] = positionals;
    if (values.help || !group) {
      out(USAGE);
      return values.help ? 0 : 2;
    }
    const url = values.url ?? env.CLARION_URL ?? "http://127.0.0.1:8787";
    const print = (/** @type {unknown} */ json, /** @type {() => string[]} */ human) => {
      for (const line of values.json ? [JSON.stringify(json, null, 2)] : human()) out(line);
    };
    const adminRequest = () => {
      const credential = values["admin-key"] ?? env.CLARION_ADMIN_KEY;
      if (!credential) throw new UsageError("Give the admin credential: CLARION_ADMIN_KEY=clarion_admin_... or --admin-key.");
      return client({ url, credential, fetch: io.fetch });
    };
    const keyRequest = () => {
      // CLARION_KEY is the name the docs' examples use; CLARION_API_KEY was the CLI's own before 0.13.
      const credential = values.key || env.CLARION_KEY || env.CLARION_API_KEY;
      if (!credential) throw new UsageError("Workflows belong to an environment: give its key with CLARION_KEY=ck_... or --key.");
      return client({ url, credential, fetch: io.fetch });
    };
    const needEnv = () => {
      if (!values.env) throw new UsageError("Name the environment: --env <slug>.");
      return encodeURIComponent(values.env);
    };
    const needOne = (/** @type {string} */ what) => {
      const [one] = rest;
      if (!one) throw new UsageError(`Name the ${what}.`);
      return encodeURIComponent(one);
    };

    switch (`${group} ${action ?? ""}`) {
      case "envs list": {
        const envs = await listAll(adminRequest(), "/v1/admin/environments");
        print(envs, () =>
          table(
            ["SLUG", "NAME", "ID", "CREATED"],
            envs.map((e) => [e.slug, e.name, e.id, e.createdAt]),
          ),
        );
        return 0;
      }
      case "envs create": {
        const slug = decodeURIComponent(needOne("environment's slug"));
        const created = await adminRequest()("POST", "/v1/admin/environments", { slug, name: values.name ?? slug });
        print(created, () => [`created environment ${created.slug} (${created.id})`, `next: clarion keys create --env ${created.slug}`]);
        return 0;
      }
      case "keys list": {
        const keys = await listAll(adminRequest(), `/v1/admin/environments/${needEnv()}/keys${values.all ? "?includeRevoked=true" : ""}`);
        print(keys, () =>
          table(
            ["ID", "PREFIX", "NAME", "KIND", "STATUS", "CREATED", "LAST USED", "EXPIRES"],
            keys.map((k) => [
              k.id,
              k.prefix,
              k.name,
              k.kind === "mcp" ? `mcp:${k.scopes.join(",")}` : (k.kind ?? "api"),
              k.status,
              k.createdAt,
              k.lastUsedAt ?? "never",
              k.expiresAt ?? k.revokedAt ?? "-",
            ]),
          ),
        );
        return 0;
      }
      case "keys create": {
        const body = {
          ...(values.name ? { name: values.name } : {}),
          ...(values["expires-at"] ? { expiresAt: values["expires-at"] } : {}),
          // An MCP key works only at /mcp, for the tools of its scopes; the API checks both.
          ...(values.kind ? { kind: values.kind } : {}),
          ...(values.scopes ? { scopes: values.scopes.split(",").map((s) => s.trim()) } : {}),
        };
        const created = await adminRequest()("POST", `/v1/admin/environments/${needEnv()}/keys`, body);
        print(created, () => [`created key ${created.id} for ${created.environment} (shown once):`, "", `  ${created.key}`, ""]);
        return 0;
      }
      case "keys revoke": {
        const revoked = await adminRequest()("POST", `/v1/admin/keys/${needOne("key id")}/revoke`);
        print(revoked, () => [`revoked ${revoked.id} (${revoked.prefix}...): refused everywhere within 60 s`]);
        return 0;
      }
      case "keys rotate": {
        const hours = values["overlap-hours"];
        if (hours !== undefined && !/^\d+(\.\d+)?$/.test(hours)) throw new UsageError("--overlap-hours takes a number of hours.");
        const rotation = await adminRequest()(
          "POST",
          `/v1/admin/keys/${needOne("key id")}/rotate`,
          hours === undefined ? {} : { overlapHours: Number(hours) },
        );
        print(rotation, () => [
          `new key ${rotation.key.id} for ${rotation.key.environment} (shown once):`,
          "",
          `  ${rotation.key.key}`,
          "",
          `the old key ${rotation.previous.id} works until ${rotation.previous.expiresAt}`,
        ]);
        return 0;
      }
      case "workflows export": {
        const files = await exportWorkflows(keyRequest(), values.dir ?? "workflows");
        print(files, () => [`exported ${files.length} workflow(s)`, ...files.map((f) => `  ${f}`)]);
        return 0;
      }
      case "workflows import": {
        if (!rest.length) throw new UsageError("Name the files or folders to import.");
        const results = await importWorkflows(keyRequest(), rest);
        print(results, () => results.map((r) => `${r.action} ${r.key} (${r.file})`));
        return 0;
      }
      case "translations pull": {
        if (rest.length !== 1) throw new UsageError("Name the folder to write: clarion translations pull <folder>.");
        const files = await pullTranslations(keyRequest(), rest[0]);
        print(files, () => [`pulled ${files.length} locale(s)`, ...files.map((f) => `  ${f}`)]);
        return 0;
      }
      case "translations push": {
        if (rest.length !== 1) throw new UsageError("Name the folder to read: clarion translations push <folder>.");
        const results = await pushTranslations(keyRequest(), rest[0]);
        print(results, () => results.map((r) => `${r.locale} at version ${r.version} (${r.file})`));
        return 0;
      }
      case `pull ${action ?? ""}`:
      case `diff ${action ?? ""}`:
      case `push ${action ?? ""}`: {
        if (!action || rest.length) throw new UsageError(`Name one folder: clarion ${group} <folder>.`);
        if (group === "pull") {
          const files = await pull(keyRequest(), action);
          print(files, () => [`pulled ${files.length} file(s) into ${action}`]);
          return 0;
        }
        const dryRun = group === "diff" || (values["dry-run"] ?? false);
        const result = await push(keyRequest(), action, { dryRun, prune: values.prune ?? false });
        print(result, () => changeLines(result, /** @type {"diff" | "push"} */ (group)));
        // diff's exit code says whether the folder and the environment differ, for CI.
        return group === "diff" && result.changes.some((c) => c.change !== "unchanged") ? 1 : 0;
      }
      case "types ": {
        const written = await writeTypes(keyRequest(), values.out ?? "clarion.d.ts");
        print(written, () => [`wrote types of ${written.workflows} workflow(s) to ${written.file}`]);
        return 0;
      }
      case "promote ": {
        if (!values.from || !values.to) throw new UsageError("Name both environments: --from <slug> --to <slug>.");
        const result = await promote(adminRequest(), {
          from: values.from,
          to: values.to,
          workflows: values.workflow ?? [],
          dryRun: values["dry-run"] ?? false,
        });
        print(result, () => promotionLines(result));
        return 0;
      }
      default:
        throw new UsageError(`Unknown command: ${positionals.join(" ")}`);
    }
  } catch (error) {
    if (error instanceof UsageError || (error instanceof Error && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS"))) {
      err(`clarion: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (error instanceof ClarionError) {
      err(`clarion: ${error.lines().join("\n")}`);
      return 1;
    }
    throw error;
  }
}

/**
 * Columns padded to their widest cell.
 * @param {string[]} head
 * @param {unknown[][]} rows
 */
function table(head, rows) {
  const cells = [head, ...rows.map((row) => row.map(String))];
  const widths = head.map((_, i) => Math.max(...cells.map((row) => row[i]?.length ?? 0)));
  return cells.map((row) =>
    row
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd(),
  );
}
