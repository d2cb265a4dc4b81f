import type { PinnedContent } from "../../delivery/recipients/render-content";
import { PartialSet } from "../../engine/partials";
import type { Data } from "../data";

/**
 * The environment's layouts and partials as they are now: a preview shows the email a trigger
 * accepted now would send. Partials are referred to as delivery refers to them (key at version),
 * so both share the isolate's parsed templates.
 */
export async function currentContent(data: Data): Promise<PinnedContent> {
  const [layouts, partials] = await Promise.all([data.layouts.all(), data.partials.all()]);
  const sources = layouts.map((l) => ({ key: l.key, version: l.version, html: l.html, text: l.text }));
  const defaultKey = layouts.find((l) => l.isDefault)?.key;
  return {
    layouts: new Map(sources.map((s) => [s.key, s])),
    defaultLayout: sources.find((s) => s.key === defaultKey) ?? null,
    partials: new PartialSet(partials.map((p) => ({ key: p.key, content: p.content, ref: `${data.environmentId}/${p.key}@${p.version}` }))),
  };
}
