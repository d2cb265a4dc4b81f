import { Badge, type BadgeTone } from "../../ui/Badge";
import type { ProposalStatus } from "./queries";

const TONE: Record<ProposalStatus, BadgeTone> = { pending: "warn", applied: "ok", rejected: "" };

export function StatusBadge({ status }: { status: ProposalStatus }) {
  return <Badge tone={TONE[status]}>{status}</Badge>;
}
