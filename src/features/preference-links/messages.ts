import { z } from "@hono/zod-openapi";
import { isLocale } from "../../contract/recipients";

/**
 * Every text the hosted pages show, in English. An environment's translations replace them per
 * locale, key by key; a key left out stays English. `{brand}` is the page's brand name (the
 * `…Unbranded` texts are shown while the environment has none), `{workflow}` the workflow's name.
 */
export const MESSAGES = {
  preferencesTitle: "Notification preferences",
  saved: "Your choices are saved.",
  allNotifications: "All notifications",
  allNotificationsHint: "Untick a channel to get nothing on it, except messages needed for your account.",
  channelEmail: "Email",
  channelSms: "Text messages (SMS)",
  channelPush: "Push notifications",
  channelChat: "Chat",
  channelInApp: "In-app notifications",
  save: "Save preferences",
  formExpired: "This form has expired. Nothing was changed.",
  reload: "Load the page again",
  unsubscribeTitle: "Unsubscribe",
  unsubscribeAllQuestion: "Stop receiving all email from {brand}?",
  unsubscribeAllQuestionUnbranded: "Stop receiving all email from this sender?",
  unsubscribeWorkflowQuestion: "Stop receiving “{workflow}” emails from {brand}?",
  unsubscribeWorkflowQuestionUnbranded: "Stop receiving “{workflow}” emails?",
  unsubscribeButton: "Unsubscribe",
  cannotUnsubscribe: "These emails cannot be unsubscribed from: they are needed for your account.",
  chooseNotifications: "Choose which notifications you get",
  unsubscribedTitle: "You are unsubscribed",
  unsubscribedBody: "You will not get these emails any more.",
  nothingChangedTitle: "Nothing changed",
  notOneClick: "This request did not ask to unsubscribe (List-Unsubscribe=One-Click).",
} as const;

export type MessageKey = keyof typeof MESSAGES;
export type Messages = Record<MessageKey, string>;

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);

/** A translated text: the English one's placeholders only, so a typo like `{brnd}` is refused rather than shown. */
const messageText = (key: MessageKey) => {
  const allowed = new Set(placeholders(MESSAGES[key]));
  return z
    .string()
    .trim()
    .min(1)
    .max(500)
    .refine((text) => placeholders(text).every((name) => allowed.has(name)), {
      message: allowed.size
        ? `Use only the placeholders ${[...allowed].map((p) => `{${p}}`).join(", ")}.`
        : "This text takes no placeholder.",
    });
};

const LocaleMessages = z
  .object(
    Object.fromEntries(Object.keys(MESSAGES).map((key) => [key, messageText(key as MessageKey).optional()])) as {
      [K in MessageKey]: z.ZodOptional<ReturnType<typeof messageText>>;
    },
  )
  .strict()
  .openapi("PreferencePageMessages", {
    description: "Texts of one locale, by key; a key left out is shown in English.",
    example: { preferencesTitle: "Benachrichtigungseinstellungen", save: "Speichern" },
  });

/** A BCP 47 tag, checked as subscribers' `locale` is: `de`, `pt-BR`, `zh-Hant-TW`. */
const LocaleTag = z.string().max(35).refine(isLocale, "Use a BCP 47 language tag such as `de` or `pt-BR`.");

const MAX_LOCALES = 50;

export const PreferencePageTranslations = z
  .record(LocaleTag, LocaleMessages)
  .refine((t) => Object.keys(t).length <= MAX_LOCALES, `At most ${MAX_LOCALES} locales.`)
  .refine((t) => new Set(Object.keys(t).map((k) => k.toLowerCase())).size === Object.keys(t).length, "A locale is given twice.")
  .openapi("PreferencePageTranslations", {
    description:
      "Per locale, the hosted pages' texts. A subscriber whose `locale` is `de-AT` gets `de-AT`, else `de`, else English (tags match in any case).",
  });
export type PreferencePageTranslations = z.infer<typeof PreferencePageTranslations>;

/** The texts for a subscriber's locale (`de_AT` and `de-AT` alike): the tag, then its language, then English. */
export function messagesFor(
  translations: Record<string, Partial<Messages>>,
  locale: string | null,
): { lang: string; text: (key: MessageKey, vars?: Record<string, string>) => string } {
  const byTag = new Map(Object.entries(translations).map(([tag, messages]) => [tag.toLowerCase(), { tag, messages }]));
  const wanted = (locale ?? "").replaceAll("_", "-").toLowerCase();
  const found = byTag.get(wanted) ?? byTag.get(wanted.split("-")[0]!);
  const messages: Messages = { ...MESSAGES, ...found?.messages };
  return {
    lang: found?.tag ?? "en",
    text: (key, vars = {}) => messages[key].replace(/\{(\w+)\}/g, (whole, name: string) => vars[name] ?? whole),
  };
}
