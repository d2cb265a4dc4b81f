import type { paths } from "../../api/client";

type SubscriberQuery = NonNullable<paths["/v1/subscribers"]["get"]["parameters"]["query"]>;

const E164 = /^\+[1-9]\d{6,14}$/;

/**
 * What the search box means for the API: an address with `@` is an exact email, a `+4179…`
 * number an exact phone, anything else part of a subscriberId or name (`q`).
 */
export function searchFilter(text: string): Pick<SubscriberQuery, "email" | "phone" | "q"> {
  const term = text.trim();
  if (!term) return {};
  if (term.includes("@")) return { email: term };
  if (E164.test(term)) return { phone: term };
  return { q: term };
}

export const subscriberPath = (subscriberId: string) => `/subscribers/${encodeURIComponent(subscriberId)}`;

/** "Ada Lovelace", or null when the subscriber has no name. */
export const fullName = (s: { firstName: string | null; lastName: string | null }) =>
  [s.firstName, s.lastName].filter(Boolean).join(" ") || null;
