import { html, raw } from "hono/html";
import { createRouter } from "../../lib/openapi";
import { pageHeaders } from "../../lib/middleware/page-headers";
import { FAVICON_SVG } from "../../contract/favicon";

const FAVICON_PATH = "/favicon.svg";

/**
 * Where the dashboard's Vite build copies `@scalar/api-reference`'s standalone bundle (see
 * dashboard/vite.config.ts): served from this Worker's assets, so the page needs no network.
 */
export const SCALAR_SCRIPT = "/docs/scalar-api-reference.js";

/**
 * Scalar's settings: no fonts from its CDN, the `ApiKey` scheme pre-filled with its prefix so
 * generated requests read `Authorization: ApiKey <key>`, and (in the page) this origin as the
 * server, so a copied curl runs as it is. A self-hosted, offline reference: none of Scalar's
 * hosted services ("Ask AI", "Generate MCP", the developer tools' Share and Deploy, which it
 * shows on localhost by default).
 */
const SCALAR_CONFIG = {
  url: "/openapi.json",
  withDefaultFonts: false,
  hideClientButton: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: "never",
  favicon: FAVICON_PATH,
  authentication: {
    preferredSecurityScheme: "ApiKey",
    securitySchemes: { ApiKey: { value: "ApiKey YOUR_API_KEY" }, AdminKey: { value: "ApiKey clarion_admin_YOUR_ADMIN_KEY" } },
  },
};

/** `</script>` can never end the inline script early: `<` is escaped inside the JSON. */
const inlineJson = (value: unknown) => JSON.stringify(value).replaceAll("<", "\\u003c");

export const docsRoutes = createRouter();

docsRoutes.get("/docs", pageHeaders, (c) => {
  const nonce = c.get("secureHeadersNonce") ?? "";
  return c.html(html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Clarion API reference</title>
    <link rel="icon" type="image/svg+xml" href="${FAVICON_PATH}" />
  </head>
  <body>
    <div id="app"></div>
    <script src="${SCALAR_SCRIPT}"></script>
    <script nonce="${nonce}">
      Scalar.createApiReference("#app", { ...${raw(inlineJson(SCALAR_CONFIG))}, servers: [{ url: location.origin }] });
    </script>
  </body>
</html>`);
});

// Browsers ask for /favicon.ico on their own; both names answer the SVG, which every current browser draws.
const FAVICON_HEADERS = { "Content-Type": "image/svg+xml", "Cache-Control": "public, max-age=86400" };
for (const path of [FAVICON_PATH, "/favicon.ico"]) docsRoutes.get(path, (c) => c.body(FAVICON_SVG, 200, FAVICON_HEADERS));
