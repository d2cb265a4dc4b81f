import type { Bindings } from "../../env";
import { sign } from "../../lib/secrets";

/** Signed tracking URLs: the signature covers the message id (and the target, for clicks). */
export async function openPixelUrl(env: Bindings, publicUrl: string, messageId: string): Promise<string> {
  return `${publicUrl}/t/o/${messageId}.${await sign(env.ENCRYPTION_KEY, `o:${messageId}`)}.gif`;
}

export async function clickUrl(env: Bindings, publicUrl: string, messageId: string, target: string): Promise<string> {
  const signature = await sign(env.ENCRYPTION_KEY, `c:${messageId}:${target}`);
  return `${publicUrl}/t/c/${messageId}.${signature}?u=${encodeURIComponent(target)}`;
}

const HREF = /(<a\b[^>]*?\bhref\s*=\s*)(["'])(https?:\/\/[^"']+)\2/gi;

const unescapeHtml = (s: string) => s.replaceAll("&amp;", "&");
const escapeAttr = (s: string) => s.replaceAll("&", "&amp;").replaceAll('"', "&quot;");

/** Adds the open pixel and rewrites http(s) links in the HTML body when the step asks for tracking. */
export async function decorateEmail(
  env: Bindings,
  publicUrl: string,
  messageId: string,
  content: Record<string, unknown>,
  tracking: { opens?: boolean; clicks?: boolean } | undefined,
): Promise<Record<string, unknown>> {
  let html = typeof content.html === "string" ? content.html : undefined;
  if (!html || !tracking || (!tracking.opens && !tracking.clicks)) return content;
  if (tracking.clicks) {
    const links = [...html.matchAll(HREF)];
    const replaced = await Promise.all(links.map((m) => clickUrl(env, publicUrl, messageId, unescapeHtml(m[3]!))));
    let i = 0;
    html = html.replace(HREF, (_all, prefix: string, quote: string) => `${prefix}${quote}${escapeAttr(replaced[i++]!)}${quote}`);
  }
  if (tracking.opens) {
    const pixel = `<img src="${await openPixelUrl(env, publicUrl, messageId)}" width="1" height="1" alt="" style="display:none">`;
    html = /<\/body>/i.test(html) ? html.replace(/<\/body>/i, `${pixel}</body>`) : html + pixel;
  }
  return { ...content, html };
}
