import type { Context } from "hono";
import { html, raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import { PAGE_HEADERS } from "../../contract/content-security-policy";
import { bytesToBase64 } from "../../lib/base64";
import type { LinkTarget } from "./resolve";

type Body = HtmlEscapedString | Promise<HtmlEscapedString>;
type Branding = LinkTarget["branding"];

const DEFAULT_ACCENT = "#1d4ed8";

/**
 * The pages hold no script at all; their one style block is allowed by a per-response nonce, and
 * forms may post only back here. The token is in the URL, so no Referer may carry it away.
 */
const policy = (nonce: string) =>
  [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    "img-src https: data:",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");

/** Raw in the page: escaping would turn its quotes into `&quot;`, and the fonts back to serif. `accent` is a checked `#rrggbb`. */
const css = (accent: string) => `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#111827;background:#f3f4f6}
main{max-width:40rem;margin:0 auto;padding:1.5rem 1rem}
.card{background:#fff;border:1px solid #d1d5db;border-radius:8px;padding:1.25rem}
h1{font-size:1.375rem;margin:0 0 1rem}
h2{font-size:1.0625rem;margin:0}
img.logo{display:block;max-height:48px;max-width:100%;margin-bottom:1rem}
fieldset{border:1px solid #d1d5db;border-radius:6px;margin:0 0 1rem;padding:.75rem 1rem}
legend{font-weight:600;padding:0 .25rem}
.desc{color:#4b5563;margin:.25rem 0 .5rem;font-size:.9375rem}
label{display:flex;align-items:center;gap:.5rem;min-height:44px;cursor:pointer}
input[type=checkbox]{width:1.25rem;height:1.25rem;accent-color:${accent}}
.channels{display:flex;flex-wrap:wrap;column-gap:1.25rem}
button{font:inherit;font-weight:600;color:#fff;background:${accent};border:0;border-radius:6px;padding:.75rem 1.25rem;min-height:44px;cursor:pointer}
a{color:${accent}}
:focus-visible{outline:3px solid ${accent};outline-offset:2px}
.note{background:#ecfdf5;border:1px solid #047857;color:#064e3b;border-radius:6px;padding:.75rem;margin-bottom:1rem}
.muted{color:#4b5563;font-size:.875rem}
`;

/** A whole page: the environment's brand above `body`, with the headers every hosted page sends. `lang`: the texts' language. */
export async function page(
  c: Context,
  status: 200 | 400 | 404 | 429,
  title: string,
  brand: Branding | null,
  body: Body,
  options: { lang?: string; headers?: Record<string, string> } = {},
) {
  const nonce = bytesToBase64(crypto.getRandomValues(new Uint8Array(16)));
  // Checked again here, as the style block is raw: only a colour ever reaches it.
  const accent = brand?.accentColor && /^#[0-9a-fA-F]{6}$/.test(brand.accentColor) ? brand.accentColor : DEFAULT_ACCENT;
  // Only a brand the team set: an environment's name ("development") means nothing to a subscriber.
  const name = brand?.brandName ?? null;
  const markup = html`<!doctype html>
<html lang="${options.lang ?? "en"}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${name ? `${title} · ${name}` : title}</title>
<style nonce="${nonce}">${raw(css(accent))}</style>
</head>
<body>
<main>
<div class="card">
${brand?.logoUrl ? html`<img class="logo" src="${brand.logoUrl}" alt="${name ?? ""}">` : ""}
${name ? html`<p class="muted">${name}</p>` : ""}
<h1>${title}</h1>
${await body}
</div>
</main>
</body>
</html>`;
  return c.html(markup, status, {
    ...PAGE_HEADERS,
    "Content-Security-Policy": policy(nonce),
    "Cache-Control": "no-store",
    ...options.headers,
  });
}

/** Every link that leads nowhere answers alike: tampered, foreign, revoked or erased. */
export const nothingToManage = (c: Context) =>
  page(c, 404, "Nothing to manage", null, html`<p>This link is not valid, or there is nothing to manage with it any more.</p>`);
