import { useQuery } from "@tanstack/react-query";
import { useApi } from "../../api/context";
import { pendingCountQuery } from "./queries";
import "./nav-count.css";

/** How many proposals wait for a decision, as a pill after a link's label; nothing when none wait (or it cannot be read). */
export function PendingCount() {
  const api = useApi();
  const count = useQuery(pendingCountQuery(api));
  if (!count.data) return null;
  return (
    <span className="nav-count" data-testid="pending-proposals">
      {count.data}
      <span className="nav-count-label"> {count.data === 1 ? "proposal" : "proposals"} pending</span>
    </span>
  );
}
