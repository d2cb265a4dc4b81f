import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";
import { ensureScalarBundle } from "../scripts/docs-assets.mjs";
import { CONTENT_SECURITY_POLICY, cspHeaderValue, PAGE_HEADERS } from "../src/contract/content-security-policy.ts";
import { FAVICON_SVG } from "../src/contract/favicon.ts";

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
      writeFileSync(join(DIST, "_headers"), headersFile(CONTENT_SECURITY_POLICY, `${process.env.DASHBOARD_BASE ?? "/dashboard/"}assets/*`));
    },
  };
}

/**
 * The dashboard alone on Cloudflare Pages (`npm run deploy:dashboard`, `--mode pages`): its
 * `_headers` let it connect to the API's origin (VITE_API_URL) and to nothing else, and its
 * favicon, which on the Worker's origin the Worker serves.
 */
function pagesAssets(outDir: string, apiUrl: string): Plugin {
  return {
    name: "clarion-pages-assets",
    closeBundle() {
      const policy = { ...CONTENT_SECURITY_POLICY, connectSrc: [...CONTENT_SECURITY_POLICY.connectSrc, new URL(apiUrl).origin] };
      writeFileSync(join(outDir, "_headers"), headersFile(policy, `${process.env.DASHBOARD_BASE ?? "/"}assets/*`));
      writeFileSync(join(outDir, "favicon.svg"), FAVICON_SVG);
    },
  };
}

/**
 * Security headers on every file; and Vite's hashed bundles under `assets` (a new build gives them
 * new names) cached for a year without revalidation, where the default `max-age=0, must-revalidate`
 * makes a browser ask again for each of them on every visit. index.html keeps the default, so a
 * new build is seen at once.
 */
function headersFile(policy: Record<string, readonly string[]>, hashedAssets: string) {
  const headers = [
    `Content-Security-Policy: ${cspHeaderValue(policy)}`,
    ...Object.entries(PAGE_HEADERS).map(([name, value]) => `${name}: ${value}`),
  ];
  return `/*\n${headers.map((h) => `  ${h}`).join("\n")}\n${hashedAssets}\n  Cache-Control: public, max-age=31536000, immutable\n`;
}

export default defineConfig(({ mode }) => {
  if (mode === "pages") {
    const apiUrl = process.env.VITE_API_URL;
    if (!apiUrl) throw new Error("--mode pages needs VITE_API_URL: the API's address (npm run deploy:dashboard sets it)");
    const outDir = resolve(process.env.DASHBOARD_OUT_DIR ?? join(import.meta.dirname, "dist-pages"));
    return {
      root: import.meta.dirname,
      base: process.env.DASHBOARD_BASE ?? "/",
      build: { outDir, emptyOutDir: true },
      plugins: [react(), pagesAssets(outDir, apiUrl)],
    };
  }
  return {
    root: import.meta.dirname,
    base: process.env.DASHBOARD_BASE ?? "/dashboard/",
    // The Inbox page's chunk (Novu's <Inbox/>, about 500 kB) loads only when that page is opened.
    build: { outDir: "dist/dashboard", emptyOutDir: true, chunkSizeWarningLimit: 600 },
    plugins: [react(), workerAssets()],
  };
});
