// An environment's content as files (`clarion pull`, `diff`, `push`): one folder per workflow,
// layout and partial with its JSON beside one `.liquid` file per template field, so a diff in
// git reads like the content. Written deterministically: pull → pull is byte-identical.
import { mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { listAll } from "./client.mjs";

const SERVER_FIELDS = ["id", "version", "createdAt", "updatedAt", "lastTriggeredAt"];

/** @param {unknown} value @returns {unknown} keys sorted at every depth */
const sorted = (value) =>
  Array.isArray(value)
    ? value.map(sorted)
    : value && typeof value === "object"
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((k) => [k, sorted(/** @type {Record<string, unknown>} */ (value)[k])]),
        )
      : value;
const jsonText = (/** @type {unknown} */ value) => `${JSON.stringify(sorted(value), null, 2)}\n`;
/** @param {Record<string, unknown>} item */
const withoutServerFields = (item) => Object.fromEntries(Object.entries(item).filter(([k]) => !SERVER_FIELDS.includes(k)));
/** A template field's file name: its path with dots (`steps.0.template.subject` → `mail.subject.liquid`). */
const REF = "$file";

/**
 * Moves every string under a step's `template` (and its `locales`) into a `.liquid` file: the
 * JSON keeps `{"$file": "<name>"}` in its place.
 * @param {any} workflow
 * @returns {{ json: any, files: Record<string, string> }}
 */
function splitWorkflow(workflow) {
  /** @type {Record<string, string>} */
  const files = {};
  const walk = (/** @type {any[]} */ steps) =>
    steps.map((step) => {
      const out = { ...step };
      const extract = (/** @type {Record<string, unknown>} */ template, /** @type {string} */ prefix) =>
        Object.fromEntries(
          Object.entries(template).map(([field, value]) => {
            if (typeof value !== "string") return [field, value];
            const name = `${prefix}.${field}.liquid`;
            files[name] = value;
            return [field, { [REF]: name }];
          }),
        );
      if (step.template && typeof step.template === "object") out.template = extract(step.template, step.id);
      if (step.locales && typeof step.locales === "object")
        out.locales = Object.fromEntries(
          Object.entries(step.locales).map(([l, t]) => [l, extract(/** @type {any} */ (t), `${step.id}.${l}`)]),
        );
      if (Array.isArray(step.paths)) out.paths = step.paths.map((/** @type {any} */ p) => ({ ...p, steps: walk(p.steps ?? []) }));
      if (step.default && Array.isArray(step.default.steps)) out.default = { ...step.default, steps: walk(step.default.steps) };
      return out;
    });
  return { json: { ...workflow, steps: walk(workflow.steps ?? []) }, files };
}

/** Puts the `.liquid` files back where their `{"$file": ...}` stands. @param {unknown} value @param {string} dir @returns {Promise<unknown>} */
async function joinFiles(value, dir) {
  if (Array.isArray(value)) return Promise.all(value.map((v) => joinFiles(v, dir)));
  if (!value || typeof value !== "object") return value;
  const ref = /** @type {Record<string, unknown>} */ (value)[REF];
  if (typeof ref === "string") return readFile(join(dir, ref), "utf8");
  const entries = await Promise.all(Object.entries(value).map(async ([k, v]) => [k, await joinFiles(v, dir)]));
  return Object.fromEntries(entries);
}

/** A layout's or partial's Liquid fields go to files of their own. */
const LIQUID_FIELDS = { layouts: ["html", "text"], partials: ["content"] };

/**
 * Writes the environment's content under `dir`, replacing what an earlier pull wrote there.
 * @param {import("./client.mjs").Request} request
 * @param {string} dir
 * @returns {Promise<string[]>} the files written
 */
export async function pull(request, dir) {
  const [workflows, layouts, partials, brand, locales] = await Promise.all([
    listAll(request, "/v1/workflows"),
    listAll(request, "/v1/layouts"),
    listAll(request, "/v1/partials"),
    request("GET", "/v1/brand"),
    request("GET", "/v1/translations"),
  ]);
  /** @type {Record<string, string>} */
  const out = {};
  for (const w of workflows) {
    const { json, files } = splitWorkflow(withoutServerFields(w));
    out[`workflows/${w.key}/workflow.json`] = jsonText(json);
    for (const [name, text] of Object.entries(files)) out[`workflows/${w.key}/${name}`] = text;
  }
  for (const [kind, items] of /** @type {const} */ ([
    ["layouts", layouts],
    ["partials", partials],
  ])) {
    for (const item of items) {
      const json = withoutServerFields(item);
      for (const field of LIQUID_FIELDS[kind]) {
        if (typeof json[field] !== "string") continue;
        out[`${kind}/${item.key}/${field}.liquid`] = /** @type {string} */ (json[field]);
        json[field] = { [REF]: `${field}.liquid` };
      }
      out[`${kind}/${item.key}/${kind.slice(0, -1)}.json`] = jsonText(json);
    }
  }
  if (brand.version > 0) {
    const { version: _v, updatedAt: _u, ...definition } = brand;
    out["brand.json"] = jsonText(definition);
  }
  for (const { locale } of locales.data) {
    const { keys } = await request("GET", `/v1/translations/${encodeURIComponent(locale)}`);
    out[`translations/${locale}.json`] = jsonText(keys);
  }
  for (const folder of ["workflows", "layouts", "partials", "translations"]) await rm(join(dir, folder), { recursive: true, force: true });
  await rm(join(dir, "brand.json"), { force: true });
  const names = Object.keys(out).sort();
  for (const name of names) {
    const file = join(dir, name);
    await mkdir(join(file, ".."), { recursive: true });
    await writeFile(file, out[name]);
  }
  return names.map((name) => join(dir, name));
}

/** @param {string} dir */
const folders = async (dir) => {
  try {
    const names = (await readdir(dir)).sort();
    const out = [];
    for (const name of names) if ((await stat(join(dir, name))).isDirectory()) out.push(name);
    return out;
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error).code === "ENOENT") return [];
    throw error;
  }
};

/**
 * The push's body from the files under `dir`.
 * @param {string} dir
 */
export async function readContent(dir) {
  /** @param {string} kind @param {string} file */
  const items = async (kind, file) =>
    Promise.all(
      (await folders(join(dir, kind))).map(async (key) =>
        joinFiles(JSON.parse(await readFile(join(dir, kind, key, file), "utf8")), join(dir, kind, key)),
      ),
    );
  let brand = null;
  try {
    brand = JSON.parse(await readFile(join(dir, "brand.json"), "utf8"));
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error).code !== "ENOENT") throw error;
  }
  let localeFiles = [];
  try {
    localeFiles = (await readdir(join(dir, "translations"))).filter((n) => n.endsWith(".json")).sort();
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error).code !== "ENOENT") throw error;
  }
  const translations = await Promise.all(
    localeFiles.map(async (name) => ({
      locale: name.slice(0, -".json".length),
      keys: JSON.parse(await readFile(join(dir, "translations", name), "utf8")),
    })),
  );
  return {
    workflows: await items("workflows", "workflow.json"),
    layouts: await items("layouts", "layout.json"),
    partials: await items("partials", "partial.json"),
    brand,
    translations,
  };
}

/**
 * Sends the files as one push (or its dry run).
 * @param {import("./client.mjs").Request} request
 * @param {string} dir
 * @param {{ dryRun: boolean, prune: boolean }} options
 * @returns {Promise<{ dryRun: boolean, changes: { resource: string, key: string, change: string, patch: unknown[], version: number }[] }>}
 */
export async function push(request, dir, { dryRun, prune }) {
  return request("POST", "/v1/content/push", { ...(await readContent(dir)), prune, dryRun });
}

/**
 * One line per resource that changes (or would), each changed one followed by its patch.
 * @param {Awaited<ReturnType<typeof push>>} result
 * @param {"diff" | "push"} command
 */
export function changeLines(result, command) {
  const todo = result.changes.filter((c) => c.change !== "unchanged");
  if (todo.length === 0) return ["no changes"];
  const lines = [];
  for (const c of todo) {
    const at = command === "push" && !result.dryRun ? ` (version ${c.version})` : "";
    lines.push(`${c.change} ${c.resource} ${c.key}${at}`);
    if (c.change === "changed") for (const op of c.patch) lines.push(`  ${JSON.stringify(op)}`);
  }
  return lines;
}
