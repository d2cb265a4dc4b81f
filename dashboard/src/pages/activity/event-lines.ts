// A timeline event's detail in words: the facts a person looks for first (provider, attempt,
// error), then anything else the event carries, each on its own line.

export interface EventLine {
  label: string;
  value: string;
}

const text = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

/** Known keys, in the order they are read; `message` goes with `error` or `reason`. */
const KNOWN: [key: string, label: string, format?: (value: unknown, detail: Record<string, unknown>) => string][] = [
  ["provider", "Provider"],
  ["attempt", "Attempt"],
  ["error", "Error", (v, d) => (typeof d.message === "string" ? `${text(v)}: ${d.message}` : text(v))],
  ["cause", "Cause"],
  ["reason", "Reason", (v, d) => (typeof d.message === "string" && d.error === undefined ? `${text(v)}: ${d.message}` : text(v))],
  ["retryInSeconds", "Retry in", (v) => `${text(v)} s`],
  ["nextProvider", "Next provider"],
  ["providerMessageId", "Provider's id"],
  ["errorCode", "Provider's error code"],
  ["recovered", "Recorded after a restart", () => "yes"],
  ["deadLettered", "Dead-lettered", () => "yes"],
];

/** `retryInSeconds` → "Retry in seconds": the words of a key this file does not know. */
const words = (key: string) => {
  const spaced = key.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
};

export function eventLines(detail: Record<string, unknown> | null): EventLine[] {
  if (!detail) return [];
  const lines: EventLine[] = [];
  const used = new Set<string>();
  for (const [key, label, format] of KNOWN) {
    const value = detail[key];
    if (value === undefined || value === null || value === false) continue;
    lines.push({ label, value: format ? format(value, detail) : text(value) });
    used.add(key);
    if ((key === "error" || key === "reason") && typeof detail.message === "string") used.add("message");
  }
  for (const [key, value] of Object.entries(detail)) {
    if (used.has(key) || value === undefined || value === null) continue;
    lines.push({ label: words(key), value: text(value) });
  }
  return lines;
}
