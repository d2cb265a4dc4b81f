/**
 * RFC 2369 + RFC 8058 headers: mailbox providers show an "Unsubscribe" button that POSTs
 * `List-Unsubscribe=One-Click` to the URL (Gmail and Yahoo require it of bulk senders).
 */
export function withListUnsubscribe(content: Record<string, unknown>, url: string | null): Record<string, unknown> {
  if (!url) return content;
  const headers = (content.headers as Record<string, string> | undefined) ?? {};
  return {
    ...content,
    headers: { ...headers, "List-Unsubscribe": `<${url}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
  };
}
