import { createDb, type Db } from "../db/client";
import { preferenceLinksRepository } from "../db/queries/preference-link-settings";
import { eventsRepository } from "./events/repository";
import { inAppSettingsRepository } from "./in-app/settings-repository";
import { integrationsRepository } from "./integrations/repository";
import { messagesRepository } from "./messages/repository";
import { messageStats } from "./messages/stats-repository";
import { pageRepository } from "./preference-links/repository";
import { preferencesRepository } from "./subscribers/preferences-repository";
import { subscribersRepository } from "./subscribers/repository";
import { suppressionsRepository } from "./suppressions/repository";
import { topicMembersRepository } from "./topics/members-repository";
import { topicsRepository } from "./topics/repository";
import { triggersRepository } from "./triggers/repository";
import { variablesRepository } from "./variables/repository";
import { attemptsRepository } from "./webhook-endpoints/attempts-repository";
import { webhookEndpointsRepository } from "./webhook-endpoints/repository";
import { workflowsRepository } from "./workflows/repository";
import { versionsRepository } from "./workflows/versions/repository";

/**
 * An object whose properties are made on first read and kept: a request builds `c.var.data` on
 * every authenticated call (the accept path included) and most read one or two repositories of it.
 */
function onFirstRead<T extends Record<string, () => unknown>>(makers: T): { readonly [K in keyof T]: ReturnType<T[K]> } {
  const made = {} as { [K in keyof T]: ReturnType<T[K]> };
  for (const key of Object.keys(makers) as (keyof T & string)[]) {
    Object.defineProperty(made, key, {
      enumerable: true,
      configurable: true,
      get() {
        const value = makers[key]!() as ReturnType<T[typeof key]>;
        Object.defineProperty(made, key, { value, enumerable: true });
        return value;
      },
    });
  }
  return made;
}

/**
 * Every repository of one environment, bound to it once: a caller holding this object has no way
 * to name another environment's rows. Requests get it as `c.var.data` (set by the auth middleware
 * from the key's environment); work without a request builds it from the environmentId it carries.
 * Making one is cheap: each repository is built when first read, and no query runs until a method is called.
 */
export function dataFor(db: Db, environmentId: string, encryptionKey: string | undefined) {
  const repositories = onFirstRead({
    events: () => eventsRepository(db, environmentId),
    inAppSettings: () => inAppSettingsRepository(db, environmentId, encryptionKey),
    integrations: () => integrationsRepository(db, environmentId, encryptionKey),
    messages: () => messagesRepository(db, environmentId),
    preferenceLinks: () => preferenceLinksRepository(db, environmentId, encryptionKey),
    preferencePages: () => pageRepository(db, environmentId),
    preferences: () => preferencesRepository(db, environmentId),
    subscribers: () => subscribersRepository(db, environmentId),
    suppressions: () => suppressionsRepository(db, environmentId),
    topicMembers: () => topicMembersRepository(db, environmentId),
    topics: () => topicsRepository(db, environmentId),
    triggers: () => triggersRepository(db, environmentId),
    variables: () => variablesRepository(db, environmentId, encryptionKey),
    webhookAttempts: () => attemptsRepository(db, environmentId),
    webhookEndpoints: () => webhookEndpointsRepository(db, environmentId, encryptionKey),
    workflowVersions: () => versionsRepository(db, environmentId),
    workflows: () => workflowsRepository(db, environmentId),
  });
  return Object.assign(repositories, {
    environmentId,
    messageStats: (query: Parameters<typeof messageStats>[2]) => messageStats(db, environmentId, query),
  });
}

export type Data = ReturnType<typeof dataFor>;

/** `dataFor` from a Worker's bindings: the environment's repositories on its own D1 with its encryption key. */
export const dataOf = (env: { DB: D1Database; ENCRYPTION_KEY?: string }, environmentId: string): Data =>
  dataFor(createDb(env.DB), environmentId, env.ENCRYPTION_KEY);

declare module "../env" {
  /** `c.var.data`'s type, filled in here because env.ts names no feature (see .dependency-cruiser.cjs). */
  interface EnvironmentData extends Data {}
}
