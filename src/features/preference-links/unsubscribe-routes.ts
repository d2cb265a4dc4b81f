import { html } from "hono/html";
import { createRouter } from "../../lib/openapi";
import { nothingToManage, page } from "./layout";
import { changePreferences, oneClickUpdate } from "./opt-out";
import { resolveLink } from "./resolve";

/** RFC 8058 one-click unsubscribe: mail providers POST this form body, with no cookie and no login. */
export const unsubscribeRoutes = createRouter();

/** The form body, or null when it is not a form (malformed bodies are the sender's problem, never a 500). */
async function formOf(request: Request): Promise<Record<string, unknown> | null> {
  try {
    return await new Response(request.body, { headers: request.headers }).formData().then((f) => Object.fromEntries(f));
  } catch {
    return null;
  }
}

// A GET only shows the button: mail scanners fetch every link in a message, and must not unsubscribe anyone.
unsubscribeRoutes.get("/u/:token", async (c) => {
  const token = c.req.param("token");
  const target = await resolveLink(c.env, token);
  if (!target) return nothingToManage(c);
  const update = await oneClickUpdate(target);
  const what = target.workflowKey === null || update?.channels ? "all email" : "these emails";
  return page(
    c,
    200,
    "Unsubscribe",
    target.branding,
    html`${
      update
        ? html`<form method="post" action="/u/${token}">
<input type="hidden" name="List-Unsubscribe" value="One-Click">
<p>Stop receiving ${what} from ${target.branding.brandName ?? target.branding.environmentName}?</p>
<button type="submit">Unsubscribe</button>
</form>`
        : html`<p>These emails cannot be unsubscribed from: they are needed for your account.</p>`
    }
<p><a href="/p/${token}">Choose which notifications you get</a></p>`,
  );
});

unsubscribeRoutes.post("/u/:token", async (c) => {
  const token = c.req.param("token");
  const target = await resolveLink(c.env, token);
  if (!target) return nothingToManage(c);
  const form = await formOf(c.req.raw);
  if (form?.["List-Unsubscribe"] !== "One-Click") {
    return page(c, 400, "Unsubscribe", target.branding, html`<p>This request did not ask to unsubscribe (List-Unsubscribe=One-Click).</p>`);
  }
  const update = await oneClickUpdate(target);
  if (update) await changePreferences(c.env, target, update, "one_click");
  return page(
    c,
    200,
    update ? "You are unsubscribed" : "Nothing changed",
    target.branding,
    html`<p>${update ? "You will not get these emails any more." : "These emails cannot be unsubscribed from."}</p>
<p><a href="/p/${token}">Choose which notifications you get</a></p>`,
  );
});
