import { type RefObject, useEffect } from "react";
import { useBlocker } from "react-router";
import type { Question } from "../../ui/ConfirmDialog";

/**
 * Leaving the page with unsaved changes asks first: a reload or closing the tab through the
 * browser's own prompt, a link within the dashboard through ours (`ask`). The editor's own moves
 * (after a save or a delete) set `leaving` and pass.
 */
export function useLeaveGuard(unsaved: boolean, leaving: RefObject<boolean>, ask: (question: Question) => Promise<boolean>) {
  useEffect(() => {
    if (!unsaved) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [unsaved]);
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) => unsaved && !leaving.current && currentLocation.pathname !== nextLocation.pathname,
  );
  useEffect(() => {
    if (blocker.state !== "blocked") return;
    void ask({
      title: "Leave without saving?",
      body: "This workflow has unsaved changes; they are lost if you leave.",
      confirm: "Leave",
      danger: true,
    }).then((yes) => (yes ? blocker.proceed() : blocker.reset()));
  }, [blocker, ask]);
}
