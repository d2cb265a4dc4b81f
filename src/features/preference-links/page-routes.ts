import type { Context } from "hono";
import { html } from "hono/html";
import { CHANNELS, type Channel } from "../../engine/steps";
import type { AppEnv } from "../../env";
import { createRouter } from "../../lib/openapi";
import { withDefaults } from "../subscribers/preferences";
import type { SubscriberPreferences } from "../subscribers/preferences-schemas";
import { nothingToManage, page } from "./layout";
import { linkRateLimit } from "./rate-limit";
import type { MessageKey } from "./messages";
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
import { resolveLink, type LinkTarget } from "./resolve";

/** The hosted preference page: a plain form, no script, the link's token as the only credential. */
export const preferencePageRoutes = createRouter();
preferencePageRoutes.use("/p/:token", linkRateLimit);

const CHANNEL_NAMES = {
  email: "channelEmail",
  sms: "channelSms",
  push: "channelPush",
  chat: "channelChat",
  in_app: "channelInApp",
} as const satisfies Record<Channel, MessageKey>;

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
  const { text, lang } = target.messages;
  return page(
    c,
    200,
    text("preferencesTitle"),
    target.branding,
    html`${saved ? html`<p class="note" role="status">${text("saved")}</p>` : ""}
<form method="post" action="/p/${token}">
<input type="hidden" name="nonce" value="${await formNonce(c.env.ENCRYPTION_KEY, token)}">
<fieldset>
<legend>${text("allNotifications")}</legend>
<p class="desc">${text("allNotificationsHint")}</p>
<div class="channels">${CHANNELS.map((ch) => checkbox(channelField(ch), text(CHANNEL_NAMES[ch]), prefs.channels[ch]))}</div>
</fieldset>
${workflows.map(
  (wf) => html`<fieldset>
<legend>${wf.name}</legend>
${wf.description ? html`<p class="desc">${wf.description}</p>` : ""}
<div class="channels">${wf.channels.map((ch) => checkbox(workflowField(wf.key, ch), text(CHANNEL_NAMES[ch]), effective(prefs, wf.key, ch)))}</div>
</fieldset>`,
)}
<button type="submit">${text("save")}</button>
</form>`,
    { lang },
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
  const target = await resolveLink(c.env, token, "preferences");
  if (!target) return nothingToManage(c);
  const workflows = choosable(await target.data.preferencePages.choosable());
  return render(c, token, target, workflows, withDefaults(target.preferences), false);
});

preferencePageRoutes.post("/p/:token", async (c) => {
  const token = c.req.param("token");
  const target = await resolveLink(c.env, token, "preferences");
  if (!target) return nothingToManage(c);
  const form = await formOf(c.req.raw);
  if (!form || !(await checkNonce(c.env.ENCRYPTION_KEY, token, form.get("nonce")))) {
    const { text, lang } = target.messages;
    return page(
      c,
      400,
      text("preferencesTitle"),
      target.branding,
      html`<p>${text("formExpired")}</p><p><a href="/p/${token}">${text("reload")}</a></p>`,
      { lang },
    );
  }
  const workflows = choosable(await target.data.preferencePages.choosable());
  const saved = await changePreferences(c.env, target, updateFromForm(form, workflows), "preference_page");
  if (saved === undefined) return nothingToManage(c);
  return render(c, token, target, workflows, withDefaults(saved), true);
});
