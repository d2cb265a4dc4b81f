import type { Integration } from "./queries";

/** The order delivery tries a channel's integrations in: primary first, then priority, then age. */
export function failoverOrder(integrations: Integration[]): Integration[] {
  return [...integrations].sort(
    (a, b) => Number(b.primary) - Number(a.primary) || a.priority - b.priority || a.createdAt.localeCompare(b.createdAt),
  );
}

/**
 * The priorities that move `id` one place up (-1) or down (+1) among a channel's integrations
 * after the primary. Equal priorities (every integration starts at 0) cannot be swapped, so the
 * whole list is renumbered 10, 20, 30…; only the integrations whose priority changes are returned.
 */
export function movedPriorities(ordered: Integration[], id: string, by: -1 | 1): { id: string; priority: number }[] {
  const rest = ordered.filter((i) => !i.primary);
  const from = rest.findIndex((i) => i.id === id);
  const to = from + by;
  if (from < 0 || to < 0 || to >= rest.length) return [];
  const moved = [...rest];
  const [item] = moved.splice(from, 1);
  moved.splice(to, 0, item!);
  return moved.flatMap((integration, index) => {
    const priority = (index + 1) * 10;
    return integration.priority === priority ? [] : [{ id: integration.id, priority }];
  });
}
