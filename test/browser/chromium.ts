// Where the browser suite finds Chromium, and what it says when there is none.
import { accessSync, constants } from "node:fs";

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome-stable", "/usr/bin/google-chrome"];

export const NO_CHROMIUM = [
  "The dashboard's browser tests need Chromium and found none",
  `(looked at $CHROME_PATH, $CHROMIUM_PATH, ${CANDIDATES.join(", ")}).`,
  "Install it with `sudo apt-get install -y chromium` (Debian/Ubuntu), or point CHROME_PATH at a Chrome or Chromium binary.",
].join(" ");

const executable = (path: string) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** The first Chromium found: `CHROME_PATH`, `CHROMIUM_PATH`, then the usual install places. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | null {
  const named = [env.CHROME_PATH, env.CHROMIUM_PATH].filter((p): p is string => Boolean(p));
  return [...named, ...CANDIDATES].find(executable) ?? null;
}

/**
 * Outside CI a machine without Chromium skips the suite with `NO_CHROMIUM`; in CI (`CI` set) a
 * missing browser is a failure, since .ci/run installs it.
 */
export function chromiumOrSkip(env: NodeJS.ProcessEnv = process.env): string | null {
  const found = findChromium(env);
  if (found) return found;
  if (env.CI) throw new Error(NO_CHROMIUM);
  console.warn(`\n[browser tests skipped] ${NO_CHROMIUM}\n`);
  return null;
}
