import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { cruise, type IReporterOutput } from "dependency-cruiser";
import { afterAll, beforeAll } from "vitest";

const root = resolve(__dirname, "../..");
const config = createRequire(import.meta.url)(join(root, ".dependency-cruiser.cjs"));

/**
 * One rule of .dependency-cruiser.cjs run over a small tree of probe files (path → text), made
 * for the test file that calls this and removed after it: `violations()` answers `from -> to` for
 * each import the rule refuses, with `to` passed through `rename` (a package's file → its name).
 */
export function ruleProbe(ruleName: string, files: Record<string, string>, rename: (to: string) => string = (to) => to) {
  let probe: string;
  beforeAll(() => {
    probe = mkdtempSync(join(tmpdir(), `clarion-${ruleName}-`));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(probe, path)), { recursive: true });
      writeFileSync(join(probe, path), text);
    }
    symlinkSync(join(root, "node_modules"), join(probe, "node_modules"), "dir");
  });
  afterAll(() => rmSync(probe, { recursive: true, force: true }));

  return async function violations(): Promise<string[]> {
    const rule = config.forbidden.find((r: { name: string }) => r.name === ruleName);
    if (!rule) throw new Error(`.dependency-cruiser.cjs has no rule "${ruleName}"`);
    const cwd = process.cwd();
    process.chdir(probe);
    try {
      const result: IReporterOutput = await cruise(["src"], {
        ruleSet: { forbidden: [rule] },
        validate: true,
        tsPreCompilationDeps: true,
        doNotFollow: { path: "node_modules" },
        enhancedResolveOptions: config.options.enhancedResolveOptions,
      });
      if (typeof result.output === "string") throw new Error(result.output);
      return result.output.summary.violations.map((v) => `${v.from} -> ${rename(v.to)}`);
    } finally {
      process.chdir(cwd);
    }
  };
}
