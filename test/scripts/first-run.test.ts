import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../local-stack";

// `npm start` on a first run prints a few lines and then its banner: wrangler's tables of
// migrations stay off the terminal (they are ~150 lines), and only a failure shows them.
const state = mkdtempSync(join(tmpdir(), "clarion-first-run-"));
afterAll(() => rmSync(state, { recursive: true, force: true }));

const applyMigrations = () =>
  promisify(execFile)(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `const { applyMigrations } = await import("./scripts/bootstrap.mjs");
       console.log(JSON.stringify(await applyMigrations({ persistTo: ${JSON.stringify(state)} })));`,
    ],
    { cwd: ROOT, env: { ...process.env, PATH: `${join(ROOT, "node_modules/.bin")}:${process.env.PATH}` } },
  );

// Each call starts wrangler (several seconds, more on a busy machine).
describe("applying the local migrations (npm start)", { timeout: 90_000 }, () => {
  it("prints nothing of wrangler's and names the migrations it applied", async () => {
    const { stdout, stderr } = await applyMigrations();
    const migrations = readdirSync(join(ROOT, "migrations")).filter((f) => f.endsWith(".sql"));
    expect(stdout).toBe(`${JSON.stringify(migrations.sort())}\n`);
    expect(stderr).toBe("");
  });

  it("applies nothing the second time, still silently", async () => {
    expect(await applyMigrations()).toEqual({ stdout: "[]\n", stderr: "" });
  });
});
