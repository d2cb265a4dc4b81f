import { type ComponentType, lazy } from "react";

/**
 * A page loaded when first visited, so each area is its own chunk and signing in loads only the
 * shell and the landing page: `const TopicsPage = lazyPage(() => import("./TopicsPage"), "TopicsPage")`.
 */
export function lazyPage<K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K) {
  return lazy(() => load().then((module) => ({ default: module[name] })));
}
