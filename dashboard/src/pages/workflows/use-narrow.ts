import { useSyncExternalStore } from "react";

/** Narrower than this, the workflow's tree is an indented list rather than a canvas. */
const NARROW = "(max-width: 720px)";

export function useNarrow(): boolean {
  return useSyncExternalStore(
    (changed) => {
      const query = window.matchMedia(NARROW);
      query.addEventListener("change", changed);
      return () => query.removeEventListener("change", changed);
    },
    () => window.matchMedia(NARROW).matches,
  );
}
