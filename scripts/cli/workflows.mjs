// Workflows as JSON files, one per workflow, so they can live in git and be applied again.
import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ClarionError, listAll } from "./client.mjs";

/**
 * The read-only fields the server answers a workflow with (`readOnly` in its OpenAPI document): a
 * file holds only what `PUT /v1/workflows/{key}` takes, and a file exported before (0.7 wrote
 * `lastTriggeredAt`) is imported without them.
 */
const SERVER_FIELDS = ["id", "version", "createdAt", "updatedAt", "lastTriggeredAt"];

/** @param {Record<string, unknown>} workflow */
export const toFile = (workflow) => Object.fromEntries(Object.entries(workflow).filter(([field]) => !SERVER_FIELDS.includes(field)));

/**
 * Writes `<dir>/<key>.json` for every workflow of the key's environment.
 * @param {import("./client.mjs").Request} request
 * @param {string} dir
 * @returns {Promise<string[]>} the files written
 */
export async function exportWorkflows(request, dir) {
  const workflows = await listAll(request, "/v1/workflows");
  await mkdir(dir, { recursive: true });
  const files = [];
  for (const workflow of workflows) {
    const file = join(dir, `${workflow.key}.json`);
    await writeFile(file, `${JSON.stringify(toFile(workflow), null, 2)}\n`);
    files.push(file);
  }
  return files;
}

/** Tells the server the write applies a file, so its audit log records an import. */
const IMPORT = { "clarion-import": "true" };

/** @param {string[]} paths  files, or folders whose `*.json` are read */
async function jsonFiles(paths) {
  const files = [];
  for (const path of paths) {
    if ((await stat(path)).isDirectory()) {
      const names = (await readdir(path)).filter((name) => name.endsWith(".json")).sort();
      files.push(...names.map((name) => join(path, name)));
    } else files.push(path);
  }
  return files;
}

/**
 * Creates or replaces each workflow by its key: running it twice changes nothing the second time.
 * @param {import("./client.mjs").Request} request
 * @param {string[]} paths
 * @returns {Promise<{ file: string, key: string, action: "created" | "updated" }[]>}
 */
export async function importWorkflows(request, paths) {
  const results = [];
  for (const file of await jsonFiles(paths)) {
    const workflow = toFile(JSON.parse(await readFile(file, "utf8")));
    const key = workflow.key;
    if (typeof key !== "string") throw new Error(`${file}: a workflow file needs a "key"`);
    try {
      try {
        await request("PUT", `/v1/workflows/${encodeURIComponent(key)}`, workflow, IMPORT);
        results.push({ file, key, action: /** @type {const} */ ("updated") });
      } catch (error) {
        if (!(error instanceof ClarionError && error.code === "workflow_not_found")) throw error;
        await request("POST", "/v1/workflows", workflow, IMPORT);
        results.push({ file, key, action: /** @type {const} */ ("created") });
      }
    } catch (error) {
      // Which file the server refused: the files before it were applied, the ones after it were not.
      if (error instanceof ClarionError) error.message = `${file}: ${error.message}`;
      throw error;
    }
  }
  return results;
}
