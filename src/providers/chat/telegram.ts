import { z } from "@hono/zod-openapi";
import { answerFailure, callProvider, isAnswer, joinUrl, malformed, type ProviderAnswer } from "../http";
import type { ProviderAdapter, SendOutcome } from "../types";

const Credentials = z.object({
  botToken: z
    .string()
    .regex(/^\d+:[\w-]+$/, "A bot token from @BotFather, e.g. 123456:ABC-DEF…")
    .openapi({ writeOnly: true }),
  parseMode: z
    .enum(["MarkdownV2", "HTML", "Markdown"])
    .optional()
    .openapi({ description: "How Telegram formats the text; plain text when omitted." }),
});

const TelegramAnswer = z
  .object({
    ok: z.boolean(),
    result: z.object({ message_id: z.number(), chat: z.object({ id: z.union([z.number(), z.string()]) }) }).optional(),
    error_code: z.number().optional(),
    description: z.string().optional(),
    parameters: z.object({ retry_after: z.number().optional(), migrate_to_chat_id: z.number().optional() }).optional(),
  })
  .loose();
type TelegramAnswer = z.infer<typeof TelegramAnswer>;

/** "Bad Request: chat not found" → "chat_not_found"; "Bad Request: can't parse entities: …" → "can_t_parse_entities". */
function codeOf(answer: TelegramAnswer | undefined, status: number): string {
  if (status === 429) return "too_many_requests";
  const parts = answer?.description?.split(":") ?? [];
  const reason = parts.length > 1 ? parts[1]! : (parts[0] ?? "");
  const slug = reason
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_|_$/g, "")
    .slice(0, 64);
  return slug || `http_${status}`;
}

function outcomeOf(response: ProviderAnswer, answer: TelegramAnswer | undefined): SendOutcome {
  if (answer?.ok && answer.result) return { ok: true, providerMessageId: `${answer.result.chat.id}:${answer.result.message_id}` };
  if (response.ok) return malformed("Telegram answered without a message.");
  const code = codeOf(answer, response.status);
  if (response.status === 429 && answer?.parameters?.retry_after !== undefined) {
    return answerFailure(response, { kind: "retryable", code, retryAfterSeconds: answer.parameters.retry_after });
  }
  // 403: blocked by the user, user deactivated, bot kicked or not a member; 400 for a chat that does not exist.
  if (
    response.status === 403 ||
    (response.status === 400 && /chat not found|user not found|chat_id is empty/i.test(answer?.description ?? ""))
  ) {
    return answerFailure(response, { kind: "invalid_recipient", code, retryAfterSeconds: undefined });
  }
  return answerFailure(response, { code });
}

/** Telegram Bot API `sendMessage`; the subscriber's chat address is the chat id (or `@channelusername`). */
export const telegram: ProviderAdapter<"chat"> = {
  id: "telegram",
  channel: "chat",
  credentials: Credentials,

  async send(request, { integration, outbound }) {
    const credentials = Credentials.parse(integration.credentials);
    const url = joinUrl(integration.baseUrl ?? "https://api.telegram.org", `/bot${credentials.botToken}/sendMessage`);
    const post = async (chatId: string | number) => {
      const response = await callProvider(
        {
          url,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            chat_id: chatId,
            text: request.content.text,
            ...(credentials.parseMode ? { parse_mode: credentials.parseMode } : {}),
            ...request.providerOverrides,
          }),
        },
        outbound,
      );
      if (!isAnswer(response)) return { outcome: response };
      const answer = TelegramAnswer.safeParse(response.json).data;
      return { outcome: outcomeOf(response, answer), migrateTo: answer?.parameters?.migrate_to_chat_id };
    };
    const first = await post(request.to);
    // A group upgraded to a supergroup has a new id: deliver there now (the stored address stays the old one).
    return first.migrateTo !== undefined ? (await post(first.migrateTo)).outcome : first.outcome;
  },

  /** `getMe` sends nothing and names the bot the token belongs to. */
  async check(integration, outbound) {
    const credentials = Credentials.parse(integration.credentials);
    const url = joinUrl(integration.baseUrl ?? "https://api.telegram.org", `/bot${credentials.botToken}/getMe`);
    const response = await callProvider({ url, method: "GET" }, outbound);
    if (!isAnswer(response)) return { ok: false, detail: response.ok ? "" : response.message };
    const answer = z
      .object({
        ok: z.boolean(),
        description: z.string().optional(),
        result: z.object({ username: z.string().optional() }).loose().optional(),
      })
      .safeParse(response.json).data;
    if (answer?.ok) return { ok: true, detail: `The token belongs to @${answer.result?.username ?? "your bot"}.` };
    return { ok: false, detail: `Telegram refused the token: ${answer?.description ?? `HTTP ${response.status}`}.` };
  },
};
