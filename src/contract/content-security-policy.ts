// The Content-Security-Policy of everything a browser renders: /docs (sent by the Worker, which
// adds a per-response nonce to script-src) and the dashboard's static files (in `_headers`,
// written by the dashboard's Vite build). No imports, so the build config can read it too.

/**
 * Scripts from this origin only; nothing may frame the pages. Styles allow inline: both UIs set
 * style attributes at run time.
 */
export const CONTENT_SECURITY_POLICY = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", "data:"],
  fontSrc: ["'self'", "data:"],
  connectSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
};

/** The other headers of a rendered page. */
export const PAGE_HEADERS = {
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
} as const;

/** `defaultSrc: ["'self'"]` → `default-src 'self'`. */
export const cspHeaderValue = (policy: Record<string, readonly string[]> = CONTENT_SECURITY_POLICY) =>
  Object.entries(policy)
    .map(([name, sources]) => `${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} ${sources.join(" ")}`)
    .join("; ");
