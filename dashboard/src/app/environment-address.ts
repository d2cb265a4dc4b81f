// The environment is part of every dashboard address (/dashboard/env/<slug>/workflows/…), so a
// shared link opens in the environment it was copied from. The router's basename carries it:
// pages link as before ("/workflows/…") and land under the environment's prefix.

/** Where the dashboard is served: /dashboard from the Worker, / for a Pages build. */
const BASE = import.meta.env.BASE_URL.replace(/\/$/, "");
const PREFIX = new RegExp(`^${BASE.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/env/([^/]+)`);

/** The environment an address names, if any: what a shared link asks for. */
export function environmentInAddress(pathname = window.location.pathname): string | null {
  const match = PREFIX.exec(pathname);
  return match?.[1] ? decodeURIComponent(match[1]) : null;
}

/** The router's basename in an environment ("" when the admin has none yet). */
export const environmentBase = (slug: string) => (slug ? `${BASE}/env/${encodeURIComponent(slug)}` : BASE);

/**
 * Puts the environment into the address bar without a navigation: an old link (/dashboard/workflows)
 * or another environment's link gains or changes its prefix and keeps the page it names.
 */
export function moveAddressInto(slug: string): void {
  const { pathname, search, hash } = window.location;
  const match = PREFIX.exec(pathname);
  const page = match ? pathname.slice(match[0].length) : pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname;
  const wanted = `${environmentBase(slug)}${page.startsWith("/") || page === "" ? page : `/${page}`}`;
  if (wanted !== pathname) window.history.replaceState(window.history.state, "", `${wanted}${search}${hash}`);
}

/**
 * The component page (/dashboard/_ui): every component of ui/ in each state, in both themes. It
 * shows no data, so it needs no session; it ships with the build, since the browser suite checks
 * the built dashboard's contrast on it.
 */
export const isComponentPage = (pathname = window.location.pathname) => pathname === `${BASE}/_ui` || pathname === `${BASE}/_ui/`;
