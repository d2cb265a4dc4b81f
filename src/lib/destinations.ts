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
  /**
   * The ports allowed in strict mode (`allowPrivate` off); absent: any. Webhook endpoints take
   * 443 and 8443 only, so that a public name cannot aim Clarion's signed POSTs at another service.
   */
  ports?: readonly number[];
}

export const STRICT_DESTINATIONS: DestinationOptions = { allowPrivate: false };

/** The policy a deployment's `ALLOW_PRIVATE_DESTINATIONS` binding asks for: strict unless exactly "true". */
export const destinationOptions = (env: { ALLOW_PRIVATE_DESTINATIONS?: string }): DestinationOptions => ({
  allowPrivate: env.ALLOW_PRIVATE_DESTINATIONS === "true",
});

/** Ports a webhook endpoint may use in strict mode: HTTPS's own and its usual alternative. */
export const WEBHOOK_PORTS: readonly number[] = [443, 8443];

/** The policy for webhook endpoints: the deployment's, with their ports in strict mode. */
export const webhookDestinationOptions = (env: { ALLOW_PRIVATE_DESTINATIONS?: string }): DestinationOptions => ({
  ...destinationOptions(env),
  ports: WEBHOOK_PORTS,
});

export type DestinationVerdict = { ok: true; url: URL } | { ok: false; reason: string };

/** Names that reach the machine itself, the local network or a cloud's instance metadata. */
const LOCAL_NAMES = new Set(["localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"]);
const METADATA_NAMES = new Set(["metadata", "metadata.google.internal", "instance-data", "instance-data.ec2.internal"]);
// `.svc` and `.cluster.local` are Kubernetes' service names; `.internal` is Google Cloud's and AWS's.
const LOCAL_SUFFIXES = [".localhost", ".local", ".cluster.local", ".svc", ".internal", ".home.arpa", ".lan", ".intranet", ".corp"];

type Range = "loopback" | "private" | "link-local" | "reserved" | "malformed";

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

const dotted = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;

/**
 * The IPv4 addresses an IPv6 literal carries by a transition mechanism: a relay or translator on the
 * way delivers the request to that IPv4 address, so it is judged by the IPv4 policy.
 */
function embeddedIpv4(groups: number[]): string[] {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  const last32 = dotted(g6, g7);
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0) {
    // ::a.b.c.d (compatible), ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (translated, RFC 2765)
    if (g4 === 0 && (g5 === 0 || g5 === 0xffff)) return [last32];
    if (g4 === 0xffff && g5 === 0) return [last32];
  }
  // NAT64 well-known prefix 64:ff9b::/96 (RFC 6052)
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return [last32];
  // Local-use NAT64 64:ff9b:1::/48 (RFC 8215): the operator picks the prefix length, so read the
  // address where a /96 puts it and where a /48 does (bits 48-63, then 72-87 past the u-octet);
  // the layout not in use reads as zeros there.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) {
    const candidates = [last32, dotted(g3, ((g4 & 0xff) << 8) | (g5 >> 8))].filter((v4) => v4 !== "0.0.0.0");
    return candidates.length > 0 ? candidates : [last32];
  }
  // 6to4 2002:AABB:CCDD::/48 (RFC 3056)
  if (g0 === 0x2002) return [dotted(g1, g2)];
  // Teredo 2001:0::/32 (RFC 4380): the server's address, and the client's stored inverted.
  if (g0 === 0x2001 && g1 === 0) return [dotted(g2, g3), dotted(g6 ^ 0xffff, g7 ^ 0xffff)];
  return [];
}

function ipv6Range(groups: number[]): Range | null {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0 && g6 === 0 && (g7 === 0 || g7 === 1))
    return g7 === 1 ? "loopback" : "reserved";
  for (const v4 of embeddedIpv4(groups)) {
    const range = ipv4Range(v4);
    if (range) return range;
  }
  if ((g0 & 0xfe00) === 0xfc00) return "private"; // fc00::/7 unique local
  if ((g0 & 0xffc0) === 0xfe80 || (g0 & 0xffc0) === 0xfec0) return "link-local"; // fe80::/10, old site-local
  if ((g0 & 0xff00) === 0xff00) return "reserved"; // multicast
  if (g0 === 0x2001 && g1 === 0x0db8) return "reserved"; // documentation
  return null;
}

function hostRange(hostname: string): Range | "metadata" | null {
  // Every trailing dot: resolvers take `localhost..` and `127.0.0.1..` as the names without them.
  const host = hostname.toLowerCase().replace(/\.+$/, "");
  if (host.startsWith("[")) {
    const groups = ipv6Groups(host.slice(1, -1));
    return groups ? ipv6Range(groups) : "reserved";
  }
  const v4 = ipv4Range(host);
  if (v4 !== undefined) return v4;
  // An empty label (`a..b`, `.example.com`) is no DNS name: how a resolver reads it is not ours to guess.
  if (host.split(".").includes("")) return host === "" ? "loopback" : "malformed";
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
  malformed: "not a valid host name (it has an empty label)",
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
  if (range !== null) {
    const allowedUnderOptIn = range === "loopback" || range === "private";
    if (options.allowPrivate && allowedUnderOptIn) return { ok: true, url };
    return { ok: false, reason: `${url.hostname} is ${REASONS[range]}` };
  }
  const port = Number(url.port || (url.protocol === "http:" ? 80 : 443));
  if (!options.allowPrivate && options.ports && !options.ports.includes(port))
    return { ok: false, reason: `port ${port} is not allowed: use ${options.ports.join(" or ")}` };
  return { ok: true, url };
}
