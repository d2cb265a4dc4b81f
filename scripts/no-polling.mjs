// `npm run lint:polling` (and `npm test`'s static stage): a test in the Workers runtime settles by
// driving queues and alarms itself (createMessageBatch, runDurableObjectAlarm, test/held-triggers.ts),
// so it reads once and cannot race the Queue. Polling — `eventually(` or `settledMessages(` — stays
// in the suites that run against the Queue as it is: test/e2e/ (where both are defined) and the Novu
// SDK suite, test/novu-sdk/, which talks to a real wrangler. See docs/guides/testing.md.
//
// `node scripts/no-polling.mjs [root]`: root defaults to the working directory.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { pathToFileURL } from "node:url";

/** Folders of test/ that may poll, as paths relative to the root with `/`. */
export const POLLING_ALLOWED = ["test/e2e/", "test/novu-sdk/"];

const POLLING = /\b(?:eventually|settledMessages)\s*\(/;

/** The lines of one file's text that poll: `{ file, line, text }`, line numbered from 1. */
export function pollingIn(file, text) {
  return text
    .split("\n")
    .map((source, i) => ({ file, line: i + 1, text: source.trim() }))
    .filter((l) => POLLING.test(l.text));
}

/** The TypeScript files under `root`/test outside the folders that may poll and outside node_modules, relative to `root` with `/`. */
function testFiles(root) {
  return readdirSync(join(root, "test"), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) =>
      relative(root, join(entry.parentPath ?? entry.path, entry.name))
        .split(sep)
        .join("/"),
    )
    .filter((file) => !file.split("/").includes("node_modules") && !POLLING_ALLOWED.some((dir) => file.startsWith(dir)))
    .sort();
}

/** Every line that polls in `root`/test outside test/e2e/ and test/novu-sdk/. */
export function checkPolling(root) {
  return testFiles(root).flatMap((file) => pollingIn(file, readFileSync(join(root, file), "utf8")));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const found = checkPolling(process.argv[2] ?? process.cwd());
  if (found.length) {
    console.error(
      `${found.length} line(s) poll outside ${POLLING_ALLOWED.join(" and ")}; drive the Queue or the alarm instead (test/held-triggers.ts, createMessageBatch, runDurableObjectAlarm):`,
    );
    console.error(found.map((f) => `  ${f.file}:${f.line}  ${f.text}`).join("\n"));
    process.exitCode = 1;
  } else {
    console.log(`No polling in test/ outside ${POLLING_ALLOWED.join(" and ")}.`);
  }
}
