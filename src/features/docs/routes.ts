import { html, raw } from "hono/html";
import { createRouter } from "../../lib/openapi";
import { pageHeaders } from "../../lib/middleware/page-headers";

/**
 * Where the dashboard's Vite build copies `@scalar/api-reference`'s standalone bundle (see
 * dashboard/vite.config.ts): served from this Worker's assets, so the page needs no network.
 */
export const SCALAR_SCRIPT = "/docs/scalar-api-reference.js";

/**
 * Scalar's settings: no fonts from its CDN, the `ApiKey` scheme pre-filled with its prefix so
 * generated requests read `Authorization: ApiKey <key>`, and (in the page) this origin as the
 * server, so a copied curl runs as it is.
 */
const SCALAR_CONFIG = {
  url: "/openapi.json",
  withDefaultFonts: false,
  hideClientButton: false,
  telemetry: false,
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
