import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { defineConfig, type Plugin } from "vite";
import { PAGE_HEADERS, cspHeaderValue } from "../src/contract/content-security-policy.ts";

const DIST = join(import.meta.dirname, "dist");

/**
 * Next to the dashboard, in the Worker's assets: the API reference's script (so /docs needs no CDN)
 * and `_headers`, which gives the static files the same security headers the Worker's pages get.
 */
function workerAssets(): Plugin {
  return {
    name: "clarion-worker-assets",
    closeBundle() {
      // The package exports no path to its browser bundle: find it beside the main entry (dist/).
      const main = createRequire(import.meta.url).resolve("@scalar/api-reference");
      mkdirSync(join(DIST, "docs"), { recursive: true });
      copyFileSync(join(dirname(main), "browser/standalone.js"), join(DIST, "docs/scalar-api-reference.js"));
      const headers = [
        `Content-Security-Policy: ${cspHeaderValue()}`,
        ...Object.entries(PAGE_HEADERS).map(([name, value]) => `${name}: ${value}`),
      ];
      writeFileSync(join(DIST, "_headers"), `/*\n${headers.map((h) => `  ${h}`).join("\n")}\n`);
    },
  };
}

export default defineConfig({
  root: import.meta.dirname,
  base: "/dashboard/",
  build: { outDir: "dist/dashboard", emptyOutDir: true },
  plugins: [workerAssets()],
});
