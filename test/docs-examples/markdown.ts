// The runnable examples of a Markdown page: each ```sh (or ```bash) block followed by a
// `<!-- test: ... -->` comment saying what its curl commands answer, and the ```json block after
// it, if any, the answer the page shows. `<!-- test: skip: <why> -->` leaves a block out.
export interface Example {
  page: string;
  /** 1-based line of the block's opening fence, for failure messages. */
  line: number;
  script: string;
  /** The HTTP statuses of its curl commands, in order: `201`, `401x20` (20 times), `429+` (one or more). */
  statuses: string[];
  /** Run the block, check nothing (it sets a variable for later blocks). */
  none: boolean;
  /** The answer shown after the block, compared with the last curl's body when `json` is asked. */
  answer?: unknown;
  /** Before running: wait until this trigger reaches a state, e.g. `order-A-2001-shipped completed` or `reminder-user-7 sent=1`. */
  after?: { transactionId: string; state: string };
  /** Start away from a minute boundary: the local rate limiter counts in wall-clock minutes. */
  alignMinute: boolean;
}

export interface Unmarked {
  page: string;
  line: number;
  /** What is missing: no marker at all, or a `skip` that gives no reason. */
  problem: "no marker" | "skip without a reason";
}

const MARKER = /^<!-- test: (.*) -->$/;

/** A block that talks to Clarion: curl to its address, or its CLI. */
const TALKS_TO_CLARION = /\bcurl\b.*(\$CLARION_URL|127\.0\.0\.1:8787)|\bnpx clarion\b/;

/** The examples of a page, and the curl blocks that carry no marker at all. */
export function examplesOf(page: string, text: string): { examples: Example[]; unmarked: Unmarked[] } {
  const lines = text.split("\n");
  const examples: Example[] = [];
  const unmarked: Unmarked[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\w*)$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i]!.trim() !== "```"; i++) body.push(lines[i]!.slice(indent));
    if (open[2] !== "sh" && open[2] !== "bash") continue;
    const script = body.join("\n");
    const next = nextLine(lines, i + 1);
    const marker = next ? MARKER.exec(lines[next]!.trim()) : null;
    if (!marker) {
      if (TALKS_TO_CLARION.test(script)) unmarked.push({ page, line: start + 1, problem: "no marker" });
      continue;
    }
    const parts = marker[1]!.split(";").map((p) => p.trim());
    if (parts[0]!.startsWith("skip")) {
      if (!/^skip:\s*\S/.test(marker[1]!)) unmarked.push({ page, line: start + 1, problem: "skip without a reason" });
      continue;
    }
    const example: Example = {
      page,
      line: start + 1,
      script,
      statuses: parts[0] === "none" ? [] : parts[0]!.split(/\s+/),
      none: parts[0] === "none",
      alignMinute: parts.includes("align minute"),
    };
    const after = parts.find((p) => p.startsWith("after:"));
    if (after) {
      const [transactionId, state] = after.slice("after:".length).trim().split(/\s+/);
      example.after = { transactionId: transactionId!, state: state! };
    }
    if (parts.includes("json")) {
      const fence = nextLine(lines, next! + 1);
      if (fence === undefined || lines[fence]!.trim() !== "```json")
        throw new Error(`${page}:${start + 1}: "json" asked, but no json block follows`);
      const end = lines.indexOf("```", fence + 1);
      example.answer = JSON.parse(lines.slice(fence + 1, end).join("\n"));
    }
    examples.push(example);
  }
  return { examples, unmarked };
}

function nextLine(lines: string[], from: number): number | undefined {
  for (let i = from; i < lines.length; i++) if (lines[i]!.trim() !== "") return i;
  return undefined;
}

/** `201 401x20 429+` as a pattern over statuses joined by spaces. */
export function statusPattern(tokens: string[]): RegExp {
  const parts = tokens.map((token) => {
    const m = /^(\d{3})(?:x(\d+)|(\+))?$/.exec(token);
    if (!m) throw new Error(`not a status: ${token}`);
    return m[2] ? `(?:${m[1]} ){${m[2]}}` : m[3] ? `(?:${m[1]} )+` : `${m[1]} `;
  });
  return new RegExp(`^${parts.join("")}$`);
}

const GENERATED = [
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, // UUIDs: transactionIds, requestIds
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/, // times
  /^[a-z]+_[0-9a-f]{20,}$/, // Clarion's ids: int_…, msg_…
];

/**
 * Whether an answer reads as the docs show it: every field the docs show is there with that
 * value, except values made at run time (ids, times), which only need the same kind.
 */
export function matches(shown: unknown, actual: unknown, path = "$"): string[] {
  if (Array.isArray(shown)) {
    if (!Array.isArray(actual) || actual.length !== shown.length)
      return [`${path}: ${JSON.stringify(actual)} is not ${shown.length} items`];
    return shown.flatMap((item, i) => matches(item, actual[i], `${path}[${i}]`));
  }
  if (shown && typeof shown === "object") {
    if (!actual || typeof actual !== "object") return [`${path}: ${JSON.stringify(actual)} is not an object`];
    return Object.entries(shown).flatMap(([k, v]) => matches(v, (actual as Record<string, unknown>)[k], `${path}.${k}`));
  }
  if (typeof shown === "string" && GENERATED.some((re) => re.test(shown))) {
    return typeof actual === "string" && GENERATED.some((re) => re.test(actual))
      ? []
      : [`${path}: ${JSON.stringify(actual)} is not generated like ${shown}`];
  }
  return Object.is(shown, actual) ? [] : [`${path}: ${JSON.stringify(actual)}, the docs show ${JSON.stringify(shown)}`];
}
