// The API reference's browser bundle, `@scalar/api-reference`'s dist/browser/standalone.js, without
// the package's ~250 MB of dependencies (Vue, CodeMirror, icon sets) that only its other builds use:
// `npm pack` fetches that one tarball through npm (and its cache) once, at `npm install`
// (postinstall), into .cache/; the dashboard build copies it into the Worker's assets, offline.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Bump to update the API reference; docs/getting-started.md says what it is. */
export const SCALAR_VERSION = "1.72.1";
export const SCALAR_BUNDLE = join(import.meta.dirname, "..", ".cache", `scalar-api-reference-${SCALAR_VERSION}.js`);

/** @returns {string} the path of the bundle, fetched if it is not there yet */
export function ensureScalarBundle() {
  if (existsSync(SCALAR_BUNDLE)) return SCALAR_BUNDLE;
  const work = mkdtempSync(join(tmpdir(), "clarion-scalar-"));
  try {
    const out = execFileSync("npm", ["pack", `@scalar/api-reference@${SCALAR_VERSION}`, "--pack-destination", work, "--silent"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    });
    const tarball = out.trim().split("\n").at(-1) ?? "";
    execFileSync("tar", ["-xzf", join(work, tarball), "-C", work, "package/dist/browser/standalone.js"]);
    mkdirSync(dirname(SCALAR_BUNDLE), { recursive: true });
    copyFileSync(join(work, "package/dist/browser/standalone.js"), SCALAR_BUNDLE);
    return SCALAR_BUNDLE;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    ensureScalarBundle();
  } catch (error) {
    // An install without the registry still works; only /docs stays empty until the next `npm install`.
    console.warn(`could not fetch @scalar/api-reference@${SCALAR_VERSION} for /docs: ${error instanceof Error ? error.message : error}`);
  }
}
