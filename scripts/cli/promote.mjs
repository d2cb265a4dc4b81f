// `clarion promote`: workflows from one environment to another through the admin API, which
// previews (a dry run answers exactly what the real run does) and records every promotion.

/**
 * @param {import("./client.mjs").Request} request  with the admin credential
 * @param {{ from: string, to: string, workflows: string[], dryRun: boolean }} options  no workflows: all of them
 */
export async function promote(request, { from, to, workflows, dryRun }) {
  return request("POST", "/v1/admin/promotions", { from, to, workflows: workflows.length ? workflows : "all", dryRun });
}

/**
 * What a promotion did (or would do), one line per workflow, then the secrets to set by hand.
 * @param {{ from: string, to: string, dryRun: boolean, workflows: { key: string, outcome: string, version: number }[], needsValue: string[] }} result
 */
export function promotionLines(result) {
  const verb = { created: "create", updated: "update", unchanged: "leave" };
  const lines = result.dryRun
    ? [`dry run: promoting from ${result.from} to ${result.to} would`]
    : [`promoted from ${result.from} to ${result.to}:`];
  for (const w of result.workflows) {
    if (result.dryRun)
      lines.push(
        `  ${verb[/** @type {keyof typeof verb} */ (w.outcome)] ?? w.outcome} ${w.key}${w.outcome === "unchanged" ? " as it is" : ` (version ${w.version})`}`,
      );
    else lines.push(`  ${w.outcome} ${w.key}${w.outcome === "unchanged" ? "" : ` (version ${w.version})`}`);
  }
  if (result.workflows.length === 0) lines.push("  (no workflows)");
  if (result.needsValue.length) {
    lines.push(`secret variables ${result.to} lacks (never copied: set them there by hand): ${result.needsValue.join(", ")}`);
  }
  return lines;
}
