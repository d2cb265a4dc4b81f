import type { Context } from "hono";
import { html } from "hono/html";
import type { AppEnv } from "../../env";
import { createRouter } from "../../lib/openapi";
import { withDefaults } from "../subscribers/preferences";
import type { SubscriberPreferences } from "../subscribers/preferences-schemas";
import { nothingToManage, page } from "./layout";
import { changePreferences } from "./opt-out";
import {
  channelField,
  checkNonce,
  choosable,
  effective,
  formNonce,
  updateFromForm,
  workflowField,
  type ChoosableWorkflow,
} from "./page-form";
import { pageRepository } from "./repository";
import { resolveLink, type LinkTarget } from "./resolve";

/** The hosted preference page: a plain form, no script, the link's token as the only credential. */
export const preferencePageRoutes = createRouter();

const CHANNEL_NAMES = {
  email: "Email",
  sms: "Text messages (SMS)",
  push: "Push notifications",
  chat: "Chat",
  in_app: "In-app notifications",
} as const;

const checkbox = (name: string, label: string, checked: boolean) =>
  html`<label><input type="checkbox" name="${name}" value="on"${checked ? html` checked` : ""}> ${label}</label>`;

async function render(
  c: Context<AppEnv>,
  token: string,
  target: LinkTarget,
  workflows: ChoosableWorkflow[],
  prefs: SubscriberPreferences,
  saved: boolean,
) {
  return page(
    c,
    200,
    "Notification preferences",
    target.branding,
    html`${saved ? html`<p class="note" role="status">Your choices are saved.</p>` : ""}
<form method="post" action="/p/${token}">
<input type="hidden" name="nonce" value="${await formNonce(c.env.ENCRYPTION_KEY, token)}">
<fieldset>
<legend>All notifications</legend>
<p class="desc">Untick a channel to get nothing on it, except messages needed for your account.</p>
<div class="channels">${Object.entries(CHANNEL_NAMES).map(([ch, label]) => checkbox(channelField(ch as keyof typeof CHANNEL_NAMES), label, prefs.channels[ch as keyof typeof CHANNEL_NAMES]))}</div>
</fieldset>
${workflows.map(
  (wf) => html`<fieldset>
<legend>${wf.name}</legend>
${wf.description ? html`<p class="desc">${wf.description}</p>` : ""}
<div class="channels">${wf.channels.map((ch) => checkbox(workflowField(wf.key, ch), CHANNEL_NAMES[ch], effective(prefs, wf.key, ch)))}</div>
</fieldset>`,
)}
<button type="submit">Save preferences</button>
</form>`,
  );
}

async function formOf(request: Request): Promise<FormData | null> {
  try {
    return await new Response(request.body, { headers: request.headers }).formData();
  } catch {
    return null;
  }
}

preferencePageRoutes.get("/p/:token", async (c) => {
  const token = c.req.param("token");
  const target = await resolveLink(c.env, token);
  if (!target) return nothingToManage(c);
  const workflows = choosable(await pageRepository(target.db, target.environmentId).choosable());
  return render(c, token, target, workflows, withDefaults(target.preferences), false);
});

preferencePageRoutes.post("/p/:token", async (c) => {
  const token = c.req.param("token");
  const target = await resolveLink(c.env, token);
  if (!target) return nothingToManage(c);
  const form = await formOf(c.req.raw);
  if (!form || !(await checkNonce(c.env.ENCRYPTION_KEY, token, form.get("nonce")))) {
    return page(
      c,
      400,
      "Notification preferences",
      target.branding,
      html`<p>This form has expired. Nothing was changed.</p><p><a href="/p/${token}">Load the page again</a></p>`,
    );
  }
  const workflows = choosable(await pageRepository(target.db, target.environmentId).choosable());
  const saved = await changePreferences(c.env, target, updateFromForm(form, workflows), "preference_page");
  if (saved === undefined) return nothingToManage(c);
  return render(c, token, target, workflows, withDefaults(saved), true);
});
