/** "Acme <hi@acme.dev>" or "hi@acme.dev" as the `{ email, name? }` object some providers want. */
export function parseMailbox(value: string): { email: string; name?: string } {
  const match = /^\s*(?:"?([^"<]*?)"?\s*)<([^>]+)>\s*$/.exec(value);
  if (!match) return { email: value.trim() };
  const name = match[1]?.trim();
  return { email: match[2]!.trim(), ...(name ? { name } : {}) };
}
