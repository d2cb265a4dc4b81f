import { html } from "hono/html";
import { createRouter } from "../../lib/openapi";
import { nothingToManage, page } from "./layout";
import type { MessageKey } from "./messages";
import { linkRateLimit } from "./rate-limit";
import { changePreferences, oneClick, type OneClick } from "./opt-out";
import { resolveLink, type LinkTarget } from "./resolve";

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

/** The question above the button: which emails stop, and from whom when the environment has a brand. */
function question(target: LinkTarget, { update, workflowName }: OneClick): string {
  const brand = target.branding.brandName;
  const all = workflowName === null || update?.channels !== undefined;
  const key: MessageKey = all
    ? brand
      ? "unsubscribeAllQuestion"
      : "unsubscribeAllQuestionUnbranded"
    : brand
      ? "unsubscribeWorkflowQuestion"
      : "unsubscribeWorkflowQuestionUnbranded";
  return target.messages.text(key, { ...(brand ? { brand } : {}), workflow: workflowName ?? "" });
}

/** The preference page, for a sealed link: a 0.12 link is not honoured there (it is not bound to the subscriber's incarnation). */
const toPreferences = (target: LinkTarget, token: string) =>
  target.legacy ? "" : html`<p><a href="/p/${token}">${target.messages.text("chooseNotifications")}</a></p>`;

// A GET only shows the button: mail scanners fetch every link in a message, and must not unsubscribe anyone.
unsubscribeRoutes.get("/u/:token", async (c) => {
  const token = c.req.param("token");
  const target = await resolveLink(c.env, token, "unsubscribe");
  if (!target) return nothingToManage(c);
  const plan = await oneClick(target);
  const { text, lang } = target.messages;
  return page(
    c,
    200,
    text("unsubscribeTitle"),
    target.branding,
    html`${
      plan.update
        ? html`<form method="post" action="/u/${token}">
<input type="hidden" name="List-Unsubscribe" value="One-Click">
<p>${question(target, plan)}</p>
<button type="submit">${text("unsubscribeButton")}</button>
</form>`
        : html`<p>${text("cannotUnsubscribe")}</p>`
    }
${toPreferences(target, token)}`,
    { lang },
  );
});

unsubscribeRoutes.post("/u/:token", async (c) => {
  const token = c.req.param("token");
  const target = await resolveLink(c.env, token, "unsubscribe");
  if (!target) return nothingToManage(c);
  const form = await formOf(c.req.raw);
  const { text, lang } = target.messages;
  if (form?.["List-Unsubscribe"] !== "One-Click") {
    return page(c, 400, text("unsubscribeTitle"), target.branding, html`<p>${text("notOneClick")}</p>`, { lang });
  }
  const { update } = await oneClick(target);
  if (update) await changePreferences(c.env, target, update, "one_click");
  return page(
    c,
    200,
    text(update ? "unsubscribedTitle" : "nothingChangedTitle"),
    target.branding,
    html`<p>${text(update ? "unsubscribedBody" : "cannotUnsubscribe")}</p>
${toPreferences(target, token)}`,
    { lang },
  );
});
