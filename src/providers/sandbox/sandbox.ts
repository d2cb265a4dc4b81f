import { z } from "@hono/zod-openapi";
import type { ProviderChannel } from "../../engine/steps";
import type { ProviderAdapter } from "../types";

/**
 * Local sandbox providers: they send nothing and record what would have been sent, so a
 * development environment works without any provider account.
 */
function sandbox<C extends ProviderChannel>(channel: C): ProviderAdapter<C> {
  return {
    id: `sandbox-${channel}`,
    channel,
    credentials: z.object({}).loose(),
    inProcess: true,
    async send(request, { capture }) {
      capture({ channel, provider: `sandbox-${channel}`, to: request.to, content: { ...request.content, ...request.providerOverrides } });
      return { ok: true, providerMessageId: `sandbox_${request.messageId}` };
    },
  };
}

export const sandboxEmail = sandbox("email");
export const sandboxSms = sandbox("sms");
export const sandboxPush = sandbox("push");
export const sandboxChat = sandbox("chat");
