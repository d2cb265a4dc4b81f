import { useEffect, useState } from "react";

/** How often Activity asks again while the tab is visible (TanStack Query pauses intervals in a hidden tab). */
export const LIVE_INTERVAL = 2_000;

function usePageVisible() {
  const [visible, setVisible] = useState(() => document.visibilityState === "visible");
  useEffect(() => {
    const onChange = () => setVisible(document.visibilityState === "visible");
    document.addEventListener("visibilitychange", onChange);
    return () => document.removeEventListener("visibilitychange", onChange);
  }, []);
  return visible;
}

/** A dot that says the view updates itself, and when it last did. */
export function LiveIndicator({ updatedAt, failed }: { updatedAt: number; failed?: boolean }) {
  const visible = usePageVisible();
  const state = failed ? "stalled" : visible ? "live" : "paused";
  return (
    // Not a live region: announcing the time every two seconds would drown a screen reader.
    <span className={`live live-${state}`} data-live={state}>
      <span className="live-dot" aria-hidden="true" />
      {state === "live" ? "Live" : state === "paused" ? "Paused" : "Not updating"}
      {updatedAt ? <span className="muted small"> · {new Date(updatedAt).toLocaleTimeString()}</span> : null}
    </span>
  );
}
