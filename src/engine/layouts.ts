/** A layout as a render uses it: the version the trigger was pinned to (or a preview's draft). */
export interface LayoutSource {
  key: string;
  version: number;
  html: string;
  text: string | null;
}

/** `{{ content }}`, with Liquid's optional whitespace control: where a step's content goes. */
const CONTENT_TAG = /\{\{-?\s*content\s*-?\}\}/g;

/** How many times a layout source names `{{ content }}` (a layout must name it exactly once). */
export const contentSlots = (source: string) => source.match(CONTENT_TAG)?.length ?? 0;

/**
 * The step's content must go in as it is: through Liquid, `{{ content }}` would be HTML-escaped (or
 * could be filtered). So the tag becomes a marker no payload can know (random per isolate), the
 * layout renders, and the marker is replaced by the content. It is made on first use, not at
 * module load: the Workers runtime refuses random values in global scope (wrangler dev and a
 * deployment fail to start; the test runtime lets it pass).
 */
let marker: string | undefined;
const markerOf = () => {
  marker ??= `\u0001clarion-content-${crypto.randomUUID()}\u0001`;
  return marker;
};

export type RenderMode = "html" | "text";

/** Renders a layout source around already-rendered content. */
export function wrapInLayout(layoutSource: string, content: string, render: (source: string) => string): string {
  const MARKER = markerOf();
  const rendered = render(layoutSource.replace(CONTENT_TAG, MARKER));
  return rendered.split(MARKER).join(content);
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", "#39": "'" };

/**
 * A plain-text part made from HTML, for a layout without `text`: blocks and line breaks become
 * new lines, a link keeps its address, and what a reader never sees (head, style, script) goes.
 */
export function htmlToText(html: string): string {
  return html
    .replace(/<(head|style|script|title)\b[\s\S]*?<\/\1>/gi, "")
    .replace(/<a\b[^>]*?href\s*=\s*["']([^"']+)["'][^>]*>([\s\S]*?)<\/a>/gi, (_m, href: string, label: string) => {
      const text = label.replace(/<[^>]+>/g, "").trim();
      return text === "" || text === href ? href : `${text} (${href})`;
    })
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<\/(p|div|h[1-6]|li|tr|table|section|article|header|footer|blockquote)>/gi, "\n\n")
    .replace(/<li\b[^>]*>/gi, "- ")
    .replace(/<[^>]+>/g, "")
    .replace(/&(#39|[a-z]+);/gi, (m, name: string) => ENTITIES[name.toLowerCase()] ?? m)
    .replace(/[ \t]+/g, " ")
    .replace(/ *\n */g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/**
 * The email a layout makes of a step's rendered content: its HTML inside the layout's HTML; the
 * text part inside the layout's `text` (the step's text, or its HTML made text), or without one,
 * the wrapped HTML made text.
 */
export function layoutEmail(
  content: { html?: string; text?: string },
  layout: LayoutSource,
  render: (source: string, mode: RenderMode) => string,
): { html?: string; text?: string } {
  const html = content.html === undefined ? undefined : wrapInLayout(layout.html, content.html, (s) => render(s, "html"));
  const stepText = content.text ?? (content.html === undefined ? undefined : htmlToText(content.html));
  if (layout.text !== null) {
    return { html, text: wrapInLayout(layout.text, stepText ?? "", (s) => render(s, "text")) };
  }
  return { html, text: html === undefined ? content.text : htmlToText(html) };
}
