// Novu's per-provider credentials: Clarion keeps a subscriber's push tokens and chat addresses
// per channel, so one provider's addresses are replaced, appended or removed and the rest kept.
import type { ChatAddress } from "../contract/recipients";
import type { Bindings } from "../env";
import { ApiError } from "../lib/errors";
import type { Data } from "../features/data";
import { saveSubscriber } from "../features/subscribers/save";
import { addressesOf, clarionProviderOf, NOVU_PROVIDER_IDS, type NovuCredentials } from "./providers";
import type { NovuSubscriber } from "./shapes";
import { asNovu, subscriberMissing } from "./subscriber-store";

type Mode = "replace" | "append" | "remove";

const unsupported = (providerId: string) =>
  new ApiError("validation_failed", `Clarion does not deliver to Novu's "${providerId}".`, [
    { path: "providerId", message: `Use one of ${NOVU_PROVIDER_IDS.join(", ")}.` },
  ]);

/** Same provider family: Novu's `slack` covers Clarion's webhook `slack` and bot-token `slack-api`. */
const sameProvider = (stored: string, target: string) => stored === target || (target === "slack" && stored === "slack-api");

export async function changeCredentials(
  data: Data,
  env: Bindings,
  subscriberId: string,
  providerId: string,
  mode: Mode,
  credentials: NovuCredentials = {},
): Promise<NovuSubscriber> {
  const target = clarionProviderOf(providerId);
  if (!target) throw unsupported(providerId);
  const current = await data.subscriberWrites.find(subscriberId);
  if (!current) throw subscriberMissing(subscriberId);
  const given = mode === "remove" ? { push: [], chat: [] } : (addressesOf(providerId, credentials) ?? { push: [], chat: [] });
  const keep = mode === "append" ? () => true : (provider: string) => !sameProvider(provider, target.provider);
  const dedupe = <T>(list: T[]) => [...new Map(list.map((item) => [JSON.stringify(item), item])).values()];
  const push = dedupe([...current.channels.push.filter((p) => keep(p.provider)), ...given.push]);
  const chat: ChatAddress[] = dedupe([...current.channels.chat.filter((c) => keep(c.provider)), ...given.chat]);
  const { subscriber } = await saveSubscriber(data, env, { subscriberId, channels: { push, chat } });
  return asNovu(data, subscriber);
}
