// Translations as JSON files, one `<locale>.json` per locale in the nested shape i18next and Knock
// use, so they can live in git, go to translators and come back.
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ClarionError } from "./client.mjs";

/**
 * Writes `<dir>/<locale>.json` for every locale of the key's environment.
 * @param {import("./client.mjs").Request} request
 * @param {string} dir
 * @returns {Promise<string[]>} the files written
 */
export async function pullTranslations(request, dir) {
  const { data } = await request("GET", "/v1/translations");
  await mkdir(dir, { recursive: true });
  const files = [];
  for (const { locale } of data) {
    const { keys } = await request("GET", `/v1/translations/${encodeURIComponent(locale)}`);
    const file = join(dir, `${locale}.json`);
    await writeFile(file, `${JSON.stringify(keys, null, 2)}\n`);
    files.push(file);
  }
  return files;
}

/**
 * Replaces each locale with its file's keys (`de-CH.json` is the locale `de-CH`). Running it twice
 * changes nothing the second time; a locale without a file is left alone, never deleted.
 * @param {import("./client.mjs").Request} request
 * @param {string} dir
 * @returns {Promise<{ file: string, locale: string, version: number }[]>}
 */
export async function pushTranslations(request, dir) {
  const names = (await readdir(dir)).filter((name) => name.endsWith(".json")).sort();
  const results = [];
  for (const name of names) {
    const file = join(dir, name);
    const locale = name.slice(0, -".json".length);
    try {
      const saved = await request("PUT", `/v1/translations/${encodeURIComponent(locale)}`, {
        keys: JSON.parse(await readFile(file, "utf8")),
      });
      results.push({ file, locale: saved.locale, version: saved.version });
    } catch (error) {
      // Which file the server refused: the files before it were applied, the ones after it were not.
      if (error instanceof ClarionError || error instanceof SyntaxError) error.message = `${file}: ${error.message}`;
      throw error;
    }
  }
  return results;
}
