import { WAIT_MESSAGE_STATUSES } from "./steps";

export type WaitMessageStatus = (typeof WAIT_MESSAGE_STATUSES)[number];

/**
 * The one ordering of the statuses a wait watches. Each chain is one channel family's life, and
 * reaching a status reaches every earlier one of its chain: an Inbox message read was seen (`seen`
 * < `read`), an email clicked was opened and delivered (`delivered` < `opened` < `clicked`). The
 * chains do not meet: an in-app message is never opened, an email never seen.
 */
const CHAINS: readonly (readonly WaitMessageStatus[])[] = [
  ["seen", "read"],
  ["delivered", "opened", "clicked"],
];

/** Whether a message that reached `status` has reached what a wait watches for. */
export function reaches(status: string, wanted: WaitMessageStatus): boolean {
  for (const chain of CHAINS) {
    const at = chain.indexOf(status as WaitMessageStatus);
    if (at >= 0) return chain.indexOf(wanted) >= 0 && chain.indexOf(wanted) <= at;
  }
  return false;
}

/** Statuses that can wake a wait: only these are worth a call to a trigger's home. */
export const isWaitStatus = (status: string): status is WaitMessageStatus => (WAIT_MESSAGE_STATUSES as readonly string[]).includes(status);
