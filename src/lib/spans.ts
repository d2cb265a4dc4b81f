// Clarion's own spans in Workers traces (docs/guides/observability.md): each hop of a trigger,
// from the API call to the provider's answer, carries the attributes that find it again.

/** What a hop is about; channel and provider once a message is being sent. */
export interface Hop {
  environmentId: string;
  workflow: string;
  transactionId: string;
  channel?: string;
  provider?: string;
}

/** The part of the platform's span that Clarion uses. */
export interface HopSpan {
  readonly isTraced: boolean;
  setAttributes(attributes: Record<string, string | number | boolean | undefined>): unknown;
  end(): void;
}

interface Tracer {
  enterSpan<T>(name: string, callback: (span: HopSpan) => T): T;
  startSpan(name: string): HopSpan;
}

export const hopAttributes = (hop: Hop) => ({
  "clarion.environment": hop.environmentId,
  "clarion.workflow": hop.workflow,
  "clarion.transaction_id": hop.transactionId,
  ...(hop.channel === undefined ? {} : { "clarion.channel": hop.channel }),
  ...(hop.provider === undefined ? {} : { "clarion.provider": hop.provider }),
});

let tracer: Promise<Tracer | null> | undefined;
/** The tracer once the import settled (null: none), so a hop after the first awaits nothing to find it. */
let settled: Tracer | null | undefined;
/**
 * `cloudflare:workers` is imported when first needed, not at load: the scripts that read the
 * OpenAPI document load the app in Node, where that module does not exist.
 */
const platformTracer = () =>
  (tracer ??= import("cloudflare:workers").then(
    (m) => (settled = (m.tracing as unknown as Tracer | undefined) ?? null),
    () => (settled = null),
  ));

const UNTRACED: HopSpan = { isTraced: false, setAttributes: () => undefined, end: () => undefined };

/**
 * Runs `work` inside a span named `name` carrying the hop's attributes, so the platform's own
 * spans under it (the provider's fetch, D1, object calls) nest there. Attributes are only built
 * for a sampled request: an unsampled one pays for the span and nothing else. Not an async
 * function: every accept runs through here, and an await per call was garbage per request.
 */
export function inHopSpan<T>(name: string, hop: Hop, work: (span: HopSpan) => Promise<T>): Promise<T> {
  if (settled === undefined) return platformTracer().then(() => inHopSpan(name, hop, work));
  if (!settled) return work(UNTRACED);
  return settled.enterSpan(name, (span) => {
    if (span.isTraced) span.setAttributes(hopAttributes(hop));
    return work(span);
  });
}

/**
 * `inHopSpan` under a parent span: with the parent not traced (its trace not sampled), the work
 * runs without a span of its own, which would record nothing either.
 */
export function inChildHopSpan<T>(parentTraced: boolean, name: string, hop: Hop, work: (span: HopSpan) => Promise<T>): Promise<T> {
  return parentTraced ? inHopSpan(name, hop, work) : work(UNTRACED);
}

/**
 * One span per hop around work done for several at once (a bulk accept: one call per ledger
 * shard for every trigger), each ended when the work settles.
 */
export function inHopSpans<T>(name: string, hops: readonly Hop[], work: () => Promise<T>): Promise<T> {
  return hops.length === 1 ? inHopSpan(name, hops[0]!, work) : inSpansOfMany(name, hops, work);
}

async function inSpansOfMany<T>(name: string, hops: readonly Hop[], work: () => Promise<T>): Promise<T> {
  const tracing = await platformTracer();
  const spans = tracing ? hops.map((hop) => [tracing.startSpan(name), hop] as const) : [];
  for (const [span, hop] of spans) if (span.isTraced) span.setAttributes(hopAttributes(hop));
  try {
    return await work();
  } finally {
    for (const [span] of spans) span.end();
  }
}
