/** The most ids the API takes per call (MAX_MEMBERS_PER_CALL). */
export const MEMBERS_PER_CALL = 1000;

/** Ids pasted one per line, or separated by spaces, commas or semicolons; each once, in the order given. */
export function parseIds(text: string): string[] {
  return [...new Set(text.split(/[\s,;]+/).filter(Boolean))];
}

export function chunks<T>(items: readonly T[], size = MEMBERS_PER_CALL): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export const topicPath = (key: string) => `/topics/${encodeURIComponent(key)}`;
