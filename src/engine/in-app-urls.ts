// The URLs an in-app notification carries (its redirect, its actions' redirects, its avatar) reach
// the Inbox, headless clients and custom renderers as they are: only `https:`, `http:` and relative
// references are served, so a `javascript:` (or `data:`, `vbscript:`) from a payload never reaches
// an `href` or `src`. Pure: the workflow schema checks literals at save, delivery renders then drops.
import type { InAppContent } from "../contract/in-app-content";

const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;
const ALLOWED = new Set(["https", "http"]);

/**
 * Whether a URL may be served. Read as a browser reads it: tabs and line breaks are removed
 * anywhere and control characters and spaces at either end (`java\tscript:` is `javascript:`).
 */
export function isAllowedInAppUrl(url: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: what a URL parser strips is exactly these.
  const read = url.replace(/[\t\n\r]/g, "").replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, "");
  const scheme = SCHEME.exec(read)?.[1];
  return scheme === undefined || ALLOWED.has(scheme.toLowerCase());
}

/**
 * Whether a template's URL is refused before any render: a literal URL (no Liquid) that is not
 * allowed, or a literal scheme before the first Liquid tag (`javascript:{{ payload.code }}`). What a
 * tag renders is checked at send.
 */
export function isRefusedUrlTemplate(template: string): boolean {
  const tag = template.search(/\{\{|\{%/);
  if (tag === -1) return !isAllowedInAppUrl(template);
  const literal = template.slice(0, tag);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: as isAllowedInAppUrl reads it.
  const read = literal.replace(/[\t\n\r]/g, "").replace(/^[\u0000-\u0020]+/, "");
  return SCHEME.test(read) && !isAllowedInAppUrl(read);
}

export const UNSAFE_URL_MESSAGE = "Only https:, http: and relative URLs are served to the Inbox.";

/** The content with every URL that may not be served left out, and the paths of those left out. */
export function withoutUnsafeUrls(content: InAppContent): { content: InAppContent; dropped: string[] } {
  const dropped: string[] = [];
  const out: InAppContent = { ...content };
  if (out.avatar !== undefined && !isAllowedInAppUrl(out.avatar)) {
    delete out.avatar;
    dropped.push("avatar");
  }
  if (out.redirect && !isAllowedInAppUrl(out.redirect.url)) {
    delete out.redirect;
    dropped.push("redirect.url");
  }
  for (const key of ["primaryAction", "secondaryAction"] as const) {
    const action = out[key];
    if (action?.redirect && !isAllowedInAppUrl(action.redirect.url)) {
      // The button stays: its label is text; only where it leads is gone.
      out[key] = { label: action.label };
      dropped.push(`${key}.redirect.url`);
    }
  }
  return { content: dropped.length ? out : content, dropped };
}
