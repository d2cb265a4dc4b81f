// The layout editor's preview: the layout with a sample step's HTML where `{{ content }}` is,
// done in the page so it follows every keystroke without a request.

/** `{{ content }}` as Liquid accepts it: any spacing, with or without whitespace control. */
const CONTENT = /\{\{-?\s*content\s*-?\}\}/g;

export const SAMPLE_CONTENT = `<h1 style="margin:0 0 12px">Welcome aboard</h1>
<p>This paragraph stands for an email step's content.</p>`;

export const STARTER_HTML = `<!doctype html>
<html>
  <body style="margin:0;padding:24px;background:#f4f4f5;font-family:sans-serif;color:#18181b">
    <div style="max-width:600px;margin:0 auto;background:#ffffff;padding:24px">
      {{ content }}
    </div>
  </body>
</html>`;

export const hasContent = (template: string) => (template.match(CONTENT) ?? []).length === 1;

/** The layout around `content`; the layout's other Liquid is left as written. */
export const wrapContent = (layout: string, content: string) => layout.replace(CONTENT, () => content);
