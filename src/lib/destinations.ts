/**
 * Where Clarion may send a request: the one policy for every user-supplied destination
 * (integration `baseUrl` and URL credentials, chat webhook URLs, Web Push endpoints), checked
 * when it is saved and again by the shared provider fetch.
 *
 * Only literals and names are judged: a Worker cannot resolve DNS before fetch, so a public name
 * that resolves to a private address (DNS rebinding) is out of reach here. In production
 * Cloudflare's edge itself refuses to connect a Worker's fetch to private ranges.
 */

export interface DestinationOptions {
  /** Local development and tests: http, loopback and private ranges are allowed. Link-local and metadata never are. */
  allowPrivate: boolean;
}

export const STRICT_DESTINATIONS: DestinationOptions = { allowPrivate: false };

/** The policy a deployment's `ALLOW_PRIVATE_DESTINATIONS` binding asks for: strict unless exactly "true". */
export const destinationOptions = (env: { ALLOW_PRIVATE_DESTINATIONS?: string }): DestinationOptions => ({
  allowPrivate: env.ALLOW_PRIVATE_DESTINATIONS === "true",
});

export type DestinationVerdict = { ok: true; url: URL } | { ok: false; reason: string };

/** Names that reach the machine itself, the local network or a cloud's instance metadata. */
const LOCAL_NAMES = new Set(["localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"]);
const METADATA_NAMES = new Set(["metadata", "metadata.google.internal", "instance-data", "instance-data.ec2.internal"]);
const LOCAL_SUFFIXES = [".localhost", ".local", ".internal", ".home.arpa", ".lan", ".intranet", ".corp"];

type Range = "loopback" | "private" | "link-local" | "reserved";

/** `a.b.c.d` (the URL parser has already turned `2130706433`, `0x7f000001`, `127.1`, `0177.0.0.1` into this). */
function ipv4Range(host: string): Range | null | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return undefined;
  const [a, b, c] = m.slice(1, 4).map(Number) as [number, number, number];
  if (a === 127) return "loopback";
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return "private";
  if (a === 100 && b >= 64 && b <= 127) return "private"; // CGNAT
  if (a === 169 && b === 254) return "link-local"; // cloud metadata lives here
  if (a === 0 || a >= 224) return "reserved"; // "this network", multicast, 240/4, broadcast
  if ((a === 192 && b === 0 && (c === 0 || c === 2)) || (a === 198 && (b === 18 || b === 19)) || (a === 198 && b === 51 && c === 100))
    return "reserved";
  if (a === 203 && b === 0 && c === 113) return "reserved";
  return null;
}

/** The eight 16-bit groups of an IPv6 literal as the URL parser writes it (hex groups, at most one `::`). */
function ipv6Groups(host: string): number[] | undefined {
  const [head = "", rest, extra] = host.split("::");
  if (extra !== undefined) return undefined;
  const parse = (part: string) =>
    part ? part.split(":").map((g) => (/^[0-9a-f]{1,4}$/i.test(g) ? Number.parseInt(g, 16) : Number.NaN)) : [];
  const left = parse(head);
  const right = parse(rest ?? "");
  const missing = 8 - left.length - right.length;
  if ((rest === undefined && missing !== 0) || missing < 0) return undefined;
  const groups = [...left, ...Array<number>(missing).fill(0), ...right];
  return groups.every((g) => !Number.isNaN(g)) ? groups : undefined;
}

function ipv6Range(groups: number[]): Range | null {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  const embedded = () => `${g6 >> 8}.${g6 & 0xff}.${g7 >> 8}.${g7 & 0xff}`;
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0) {
    if (g5 === 0 && g6 === 0 && (g7 === 0 || g7 === 1)) return g7 === 1 ? "loopback" : "reserved";
    // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible) reach the IPv4 address they carry.
    if (g5 === 0xffff || g5 === 0) return ipv4Range(embedded()) ?? null;
  }
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return ipv4Range(embedded()) ?? null; // NAT64
  if ((g0 & 0xfe00) === 0xfc00) return "private"; // fc00::/7 unique local
  if ((g0 & 0xffc0) === 0xfe80 || (g0 & 0xffc0) === 0xfec0) return "link-local"; // fe80::/10, old site-local
  if ((g0 & 0xff00) === 0xff00) return "reserved"; // multicast
  if (g0 === 0x2001 && g1 === 0x0db8) return "reserved"; // documentation
  return null;
}

function hostRange(hostname: string): Range | "metadata" | null {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host.startsWith("[")) {
    const groups = ipv6Groups(host.slice(1, -1));
    return groups ? ipv6Range(groups) : "reserved";
  }
  const v4 = ipv4Range(host);
  if (v4 !== undefined) return v4;
  if (METADATA_NAMES.has(host)) return "metadata";
  if (host === "" || LOCAL_NAMES.has(host) || LOCAL_SUFFIXES.some((suffix) => host.endsWith(suffix))) return "loopback";
  // A name without a dot resolves through a local search domain, never on the public internet.
  if (!host.includes(".")) return "private";
  return null;
}

const REASONS: Record<Range | "metadata", string> = {
  loopback: "a loopback or local-only host",
  private: "a private-network host",
  "link-local": "a link-local address (where cloud metadata services answer)",
  metadata: "a cloud metadata host",
  reserved: "a reserved or non-routable address",
};

/** Whether Clarion may call `target`: https to a public host, or more under `allowPrivate`. */
export function checkDestination(target: string | URL, options: DestinationOptions = STRICT_DESTINATIONS): DestinationVerdict {
  let url: URL;
  try {
    url = typeof target === "string" ? new URL(target) : target;
  } catch {
    return { ok: false, reason: "not a URL" };
  }
  if (url.protocol !== "https:" && !(options.allowPrivate && url.protocol === "http:"))
    return { ok: false, reason: `${url.protocol} is not allowed: use https://` };
  const range = hostRange(url.hostname);
  if (range === null) return { ok: true, url };
  const allowedUnderOptIn = range === "loopback" || range === "private";
  if (options.allowPrivate && allowedUnderOptIn) return { ok: true, url };
  return { ok: false, reason: `${url.hostname} is ${REASONS[range]}` };
}
