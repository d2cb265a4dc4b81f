import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkPolling } from "../../scripts/no-polling.mjs";

// The no-polling rule of `npm test`'s static stage, run over small probe trees. The calls are built
// from their names so that this file does not poll in the rule's eyes.
let probe: string | undefined;
afterEach(() => {
  if (probe) rmSync(probe, { recursive: true, force: true });
  probe = undefined;
});

function tree(files: Record<string, string>): string {
  probe = mkdtempSync(join(tmpdir(), "clarion-no-polling-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(probe, path)), { recursive: true });
    writeFileSync(join(probe, path), text);
  }
  return probe;
}

const call = (name: "eventually" | "settledMessages", args: string) => `${name}(${args})`;
const polls = `import { api } from "../request";\n\nawait ${call("eventually", "async () => (await api(key, 'GET', '/v1/x')).status === 200")};\n`;
const settles = `const [message] = await ${call("settledMessages", "key, tx, 1")};\n`;
const reads = `const tx = await triggerDelivered(key, body);\nconst [message] = await deliveredMessages(key, tx, 1);\n`;

describe("scripts/no-polling.mjs", () => {
  it("refuses polling in a Workers-runtime test, naming its file and line", () => {
    const root = tree({ "test/tenants/probe.test.ts": polls, "test/messages/probe.test.ts": settles });
    expect(checkPolling(root).map((f) => `${f.file}:${f.line}`)).toEqual(["test/messages/probe.test.ts:1", "test/tenants/probe.test.ts:3"]);
  });

  it("leaves test/e2e/, test/novu-sdk/ and installed packages alone, and passes tests that read once", () => {
    const root = tree({
      "test/e2e/helpers.ts": `export async function ${call("eventually", "check")} {}\n${settles}`,
      "test/e2e/probe.test.ts": polls,
      "test/novu-sdk/probe.test.ts": polls,
      "test/conformance/node_modules/sdk/index.d.ts": polls,
      "test/tenants/probe.test.ts": reads,
      // Not TypeScript, so not a test the rule looks at.
      "test/fixtures/notes.md": polls,
    });
    expect(checkPolling(root)).toEqual([]);
  });

  it("fails `npm test`'s static stage (exit 1, file:line on stderr) on polling outside e2e, and passes otherwise", () => {
    const script = resolve(__dirname, "../../scripts/no-polling.mjs");
    const polling = tree({ "test/tenants/probe.test.ts": polls });
    const failed = spawnSync(process.execPath, [script, polling], { encoding: "utf8" });
    expect(failed.status).toBe(1);
    expect(failed.stderr).toContain("test/tenants/probe.test.ts:3  await eventually");
    rmSync(polling, { recursive: true, force: true });
    const clean = tree({ "test/tenants/probe.test.ts": reads, "test/e2e/probe.test.ts": polls });
    expect(spawnSync(process.execPath, [script, clean], { encoding: "utf8" }).status).toBe(0);
  });
});
