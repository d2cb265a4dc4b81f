// OpenTelemetry export of the deployment's Workers traces and logs (docs/guides/observability.md).
// Cloudflare sends them to destinations made once in the dashboard (Workers Observability →
// Destinations: an OTLP endpoint and its headers); the Worker's config names them.

/**
 * @typedef {{ traces: string, logs: string, sampling: number }} Otlp
 */

/** Off: what `--otlp off` (or an empty answer) remembers, so an upgrade does not ask again. */
export const OTLP_OFF = "off";

/**
 * The destinations a `--otlp` value (or `CLARION_OTLP`) names: `honeycomb` for the pair
 * `honeycomb-traces` and `honeycomb-logs`, or the two names given as `<traces>,<logs>`;
 * null for `off`. `sampling` is the share of requests exported, 0 < rate ≤ 1.
 * @param {string} value
 * @param {string | number} [sampling]
 * @returns {Otlp | null}
 */
export function parseOtlp(value, sampling = 1) {
  const text = value.trim();
  if (text === "" || text === OTLP_OFF) return null;
  const names = text.split(",").map((n) => n.trim());
  const [traces, logs] = names.length === 1 ? [`${names[0]}-traces`, `${names[0]}-logs`] : names;
  const valid = (/** @type {string | undefined} */ n) => typeof n === "string" && /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(n);
  if (names.length > 2 || !valid(traces) || !valid(logs)) {
    throw new Error(
      `--otlp takes a destination prefix (honeycomb: honeycomb-traces and honeycomb-logs), "<traces>,<logs>" or off (got "${value}")`,
    );
  }
  const rate = Number(sampling);
  if (!(rate > 0 && rate <= 1)) throw new Error(`--otlp-sampling takes a share of requests above 0 and at most 1 (got "${sampling}")`);
  return { traces: /** @type {string} */ (traces), logs: /** @type {string} */ (logs), sampling: rate };
}

/** What the state file keeps of the choice: the value as given, or off. */
export const otlpChoice = (/** @type {Otlp | null} */ otlp) => (otlp ? `${otlp.traces},${otlp.logs}` : OTLP_OFF);

/**
 * wrangler.toml's `[observability]` table with export to the destinations: traces on (they carry
 * Clarion's own spans), logs kept in Cloudflare as before and sent on too.
 * @param {string} toml
 * @param {Otlp | null} otlp
 */
export function withOtlp(toml, otlp) {
  const table = /^\[observability\]\nenabled = true\n/m;
  if (!table.test(toml)) throw new Error("wrangler.toml has no [observability] table with enabled = true to export from");
  if (!otlp) return toml;
  const rate = String(otlp.sampling);
  return toml.replace(
    table,
    [
      "[observability]",
      "enabled = true",
      "",
      "[observability.traces]",
      "enabled = true",
      `destinations = [${JSON.stringify(otlp.traces)}]`,
      `head_sampling_rate = ${rate}`,
      "",
      "[observability.logs]",
      "enabled = true",
      `destinations = [${JSON.stringify(otlp.logs)}]`,
      `head_sampling_rate = ${rate}`,
      "",
    ].join("\n"),
  );
}
