import type { ReactNode } from "react";

/**
 * One area of the dashboard: its place in the navigation and its routes (relative to
 * /dashboard/). Each area lives in its own folder under src/pages/ and exports one of these.
 */
export interface Feature {
  /**
   * The navigation link's text and target. Without one the area is reached from another page:
   * the workflows' content (layouts, partials, brand, translations) from the Workflows page, so
   * the main navigation stays one line at 1280 px.
   */
  nav?: { label: string; to: string /** Drawn after the label (a count of what waits there). */; extra?: ReactNode };
  routes: { path: string; element: ReactNode }[];
  /** Shown only to the admin credential (environments and keys). */
  adminOnly?: boolean;
}
