import { createDb, type Db } from "../../db/client";
import { preferenceLinksRepository, type Branding } from "../../db/queries/preference-link-settings";
import type { Bindings } from "../../env";
import { readClaims, verifyToken, type LinkClaims } from "../../lib/link-tokens";
import type { SubscriberPreferences } from "../../contract/preferences";
import { messagesFor } from "./messages";
import { pageRepository } from "./repository";

export interface LinkTarget extends LinkClaims {
  db: Db;
  branding: Branding & { environmentName: string };
  preferences: SubscriberPreferences | null;
  /** The pages' texts in the subscriber's locale, where the environment translated them. */
  messages: ReturnType<typeof messagesFor>;
}

/**
 * The subscriber a link is for, or null: a token that is malformed, signed under another or a
 * rotated secret, or names an erased subscriber all end here alike, so a 404 tells nothing.
 */
export async function resolveLink(env: Bindings, token: string): Promise<LinkTarget | null> {
  const claims = readClaims(token);
  if (!claims) return null;
  const db = createDb(env.DB);
  const settings = await preferenceLinksRepository(db, claims.environmentId, env.ENCRYPTION_KEY)
    .find()
    .catch(() => undefined);
  if (!settings || !(await verifyToken(settings.secret, token))) return null;
  const pages = pageRepository(db, claims.environmentId);
  const [subscriber, environmentName] = await Promise.all([pages.subscriber(claims.subscriberId), pages.environmentName()]);
  if (subscriber === undefined || environmentName === undefined) return null;
  const { secret: _secret, ...branding } = settings;
  return {
    ...claims,
    db,
    branding: { ...branding, environmentName },
    preferences: subscriber.preferences,
    messages: messagesFor(branding.translations, subscriber.locale),
  };
}
