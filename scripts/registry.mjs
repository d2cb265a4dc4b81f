// Every local wrangler of a worker named `clarion` on one machine shares wrangler's dev registry
// unless told otherwise, and then one instance consumes another's queue jobs. Each checkout (and
// each benchmark server) gets its own registry folder unless WRANGLER_REGISTRY_PATH is set.
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";

/** @param {string} [folder]  defaults to `.wrangler/registry` in this checkout */
export function ownRegistry(folder = ".wrangler/registry") {
  const path = process.env.WRANGLER_REGISTRY_PATH ?? resolve(folder);
  mkdirSync(path, { recursive: true });
  return { WRANGLER_REGISTRY_PATH: path };
}
