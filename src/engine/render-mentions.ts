import type { LayoutSource } from "./layouts";
import type { PartialSet } from "./partials";
import { mentionsTranslations } from "./translate";

/** The layouts and partials a render may reach beyond its steps. */
export interface ReachableContent {
  layouts: ReadonlyMap<string, LayoutSource>;
  partials: PartialSet;
}

/**
 * Whether a render reads `brand`, `t` or a subscriber's links (`unsubscribe_url`,
 * `preferences_url`): in its steps, or in a layout or partial it may render (a footer partial
 * translating its text, a layout showing the logo). Delivery and previews read the brand and the
 * translations, and delivery seals the links, only when it does; the check is over every layout
 * and partial the render was given, not only those a step names, so it can only read too much,
 * never too little (a name built at render time, `{{ [name] }}`, is not seen).
 */
export function renderMentions(steps: readonly unknown[], content?: ReachableContent): { brand: boolean; texts: boolean; links: boolean } {
  const sources = [JSON.stringify(steps)];
  if (content) {
    for (const layout of content.layouts.values()) sources.push(layout.html, layout.text ?? "");
    for (const partial of content.partials.all()) sources.push(partial.content);
  }
  const text = sources.join("\n");
  return {
    brand: text.includes("brand"),
    texts: mentionsTranslations(text),
    links: text.includes("unsubscribe_url") || text.includes("preferences_url"),
  };
}
