// Reading what wrangler prints. JSON where wrangler offers it (`--json`, `--format json`);
// `queues list`, `r2 bucket list` and `deploy` only print text, read here as narrowly as possible.

/**
 * The id of the D1 database named `name` in `wrangler d1 list --json`, or null.
 * @param {string} stdout
 * @param {string} name
 */
export function databaseIdFrom(stdout, name) {
  const list = JSON.parse(stdout);
  if (!Array.isArray(list)) throw new Error("wrangler d1 list --json did not print a list");
  const found = list.find((db) => db && db.name === name);
  return found ? String(found.uuid ?? found.id) : null;
}

/**
 * The queue names in one page of `wrangler queues list`: the table's `name` column.
 * @param {string} stdout
 * @returns {string[]}
 */
export function queueNamesFrom(stdout) {
  const rows = stdout
    .split("\n")
    .filter((line) => line.includes("│") || /^\s*\|/.test(line))
    .map((line) =>
      line
        .split(/[│|]/)
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  const header = rows.findIndex((cells) => cells.includes("name"));
  if (header === -1) return [];
  const column = rows[header].indexOf("name");
  return rows
    .slice(header + 1)
    .map((cells) => cells[column])
    .filter((name) => typeof name === "string" && name !== "");
}

/**
 * The bucket names in `wrangler r2 bucket list`, which prints no JSON: one block of labelled values
 * per bucket (`name:` then `creation_date:`), in colour on a terminal.
 * @param {string} stdout
 * @returns {string[]}
 */
export function bucketNamesFrom(stdout) {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: wrangler's colour codes are what this strips
  const plain = stdout.replace(/\u001b\[[0-9;]*m/g, "");
  return [...plain.matchAll(/^\s*name:\s+(\S+)\s*$/gm)].map((m) => m[1]);
}

/**
 * The names of a Worker's secrets in `wrangler secret list --format json`.
 * @param {string} stdout
 * @returns {string[]}
 */
export function secretNamesFrom(stdout) {
  const list = JSON.parse(stdout);
  if (!Array.isArray(list)) throw new Error("wrangler secret list did not print a list");
  return list.map((secret) => String(secret.name));
}

/** What wrangler says when the Worker has not been deployed yet (API error 10007). */
export const isMissingWorker = (/** @type {string} */ output) => /10007|workers?\.api\.error\.script_not_found|not found/i.test(output);

/**
 * The workers.dev (or route) address `wrangler deploy` printed, or null.
 * @param {string} stdout
 */
export function deployedUrlFrom(stdout) {
  return /https:\/\/[a-z0-9.-]+\.workers\.dev/i.exec(stdout)?.[0] ?? null;
}
