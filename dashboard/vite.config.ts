import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";
import { ensureScalarBundle } from "../scripts/docs-assets.mjs";
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
      mkdirSync(join(DIST, "docs"), { recursive: true });
      try {
        copyFileSync(ensureScalarBundle(), join(DIST, "docs/scalar-api-reference.js"));
      } catch (error) {
        // The dashboard still builds; only /docs stays empty until the bundle can be fetched.
        this.warn(
          `/docs will be empty: the API reference's script could not be fetched (${error instanceof Error ? error.message : error})`,
        );
      }
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
  base: process.env.DASHBOARD_BASE ?? "/dashboard/",
  build: { outDir: "dist/dashboard", emptyOutDir: true },
  plugins: [react(), workerAssets()],
});
