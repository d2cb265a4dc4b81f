import { html } from "hono/html";
import { createRouter } from "../../lib/openapi";
import { nothingToManage, page } from "./layout";
import { linkRateLimit } from "./rate-limit";
import { changePreferences, oneClickUpdate } from "./opt-out";
import { resolveLink } from "./resolve";

/** RFC 8058 one-click unsubscribe: mail providers POST this form body, with no cookie and no login. */
export const unsubscribeRoutes = createRouter();
unsubscribeRoutes.use("/u/:token", linkRateLimit);

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
  const { text, lang } = target.messages;
  const question = target.workflowKey === null || update?.channels ? "unsubscribeAllQuestion" : "unsubscribeWorkflowQuestion";
  return page(
    c,
    200,
    text("unsubscribeTitle"),
    target.branding,
    html`${
      update
        ? html`<form method="post" action="/u/${token}">
<input type="hidden" name="List-Unsubscribe" value="One-Click">
<p>${text(question, { brand: target.branding.brandName ?? target.branding.environmentName })}</p>
<button type="submit">${text("unsubscribeButton")}</button>
</form>`
        : html`<p>${text("cannotUnsubscribe")}</p>`
    }
<p><a href="/p/${token}">${text("chooseNotifications")}</a></p>`,
    { lang },
  );
});

unsubscribeRoutes.post("/u/:token", async (c) => {
  const token = c.req.param("token");
  const target = await resolveLink(c.env, token);
  if (!target) return nothingToManage(c);
  const form = await formOf(c.req.raw);
  const { text, lang } = target.messages;
  if (form?.["List-Unsubscribe"] !== "One-Click") {
    return page(c, 400, text("unsubscribeTitle"), target.branding, html`<p>${text("notOneClick")}</p>`, { lang });
  }
  const update = await oneClickUpdate(target);
  if (update) await changePreferences(c.env, target, update, "one_click");
  return page(
    c,
    200,
    text(update ? "unsubscribedTitle" : "nothingChangedTitle"),
    target.branding,
    html`<p>${text(update ? "unsubscribedBody" : "cannotUnsubscribe")}</p>
<p><a href="/p/${token}">${text("chooseNotifications")}</a></p>`,
    { lang },
  );
});
