import { createDb, type Db } from "../db/client";
import { LogStore } from "../durable-objects/client/log-store";
import type { Bindings } from "../env";
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
import { attemptsRepository } from "./events/endpoints/attempts-repository";
import { webhookEndpointsRepository } from "./events/endpoints/repository";
import { workflowsRepository } from "./workflows/repository";
import { versionsRepository } from "./workflows/versions/repository";

/**
 * Every repository of one environment, bound to it once: a caller holding this object has no way
 * to name another environment's rows. Requests get it as `c.var.data` (set by the auth middleware
 * from the key's environment); work without a request builds it from the environmentId it carries.
 * Making one is cheap, as every authenticated request (the accept path included) does and most
 * read one or two repositories of it: each is built when first read (getters on the class, not
 * per-object properties), and no query runs until a method is called.
 */
export class Data {
  #events?: ReturnType<typeof eventsRepository>;
  #inAppSettings?: ReturnType<typeof inAppSettingsRepository>;
  #integrations?: ReturnType<typeof integrationsRepository>;
  #messages?: ReturnType<typeof messagesRepository>;
  #preferenceLinks?: ReturnType<typeof preferenceLinksRepository>;
  #preferencePages?: ReturnType<typeof pageRepository>;
  #preferences?: ReturnType<typeof preferencesRepository>;
  #subscribers?: ReturnType<typeof subscribersRepository>;
  #suppressions?: ReturnType<typeof suppressionsRepository>;
  #topicMembers?: ReturnType<typeof topicMembersRepository>;
  #topics?: ReturnType<typeof topicsRepository>;
  #triggers?: ReturnType<typeof triggersRepository>;
  #variables?: ReturnType<typeof variablesRepository>;
  #webhookAttempts?: ReturnType<typeof attemptsRepository>;
  #webhookEndpoints?: ReturnType<typeof webhookEndpointsRepository>;
  #workflowVersions?: ReturnType<typeof versionsRepository>;
  #workflows?: ReturnType<typeof workflowsRepository>;

  // True private fields: logging or spreading this object must not show the encryption key.
  readonly #db: Db;
  readonly #encryptionKey: string | undefined;
  /** The message log's shards (messages and their timelines since v4; D1 keeps the older ones until they expire). */
  readonly #logs: LogStore;

  constructor(
    db: Db,
    readonly environmentId: string,
    encryptionKey: string | undefined,
    logs: LogStore,
  ) {
    this.#db = db;
    this.#encryptionKey = encryptionKey;
    this.#logs = logs;
  }

  get events() {
    this.#events ??= eventsRepository(this.#db, this.environmentId);
    return this.#events;
  }
  get inAppSettings() {
    this.#inAppSettings ??= inAppSettingsRepository(this.#db, this.environmentId, this.#encryptionKey);
    return this.#inAppSettings;
  }
  get integrations() {
    this.#integrations ??= integrationsRepository(this.#db, this.environmentId, this.#encryptionKey);
    return this.#integrations;
  }
  get messages() {
    this.#messages ??= messagesRepository(this.#db, this.environmentId, this.#logs);
    return this.#messages;
  }
  get preferenceLinks() {
    this.#preferenceLinks ??= preferenceLinksRepository(this.#db, this.environmentId, this.#encryptionKey);
    return this.#preferenceLinks;
  }
  get preferencePages() {
    this.#preferencePages ??= pageRepository(this.#db, this.environmentId);
    return this.#preferencePages;
  }
  get preferences() {
    this.#preferences ??= preferencesRepository(this.#db, this.environmentId);
    return this.#preferences;
  }
  get subscribers() {
    this.#subscribers ??= subscribersRepository(this.#db, this.environmentId);
    return this.#subscribers;
  }
  get suppressions() {
    this.#suppressions ??= suppressionsRepository(this.#db, this.environmentId);
    return this.#suppressions;
  }
  get topicMembers() {
    this.#topicMembers ??= topicMembersRepository(this.#db, this.environmentId);
    return this.#topicMembers;
  }
  get topics() {
    this.#topics ??= topicsRepository(this.#db, this.environmentId);
    return this.#topics;
  }
  get triggers() {
    this.#triggers ??= triggersRepository(this.#db, this.environmentId, this.#logs);
    return this.#triggers;
  }
  get variables() {
    this.#variables ??= variablesRepository(this.#db, this.environmentId, this.#encryptionKey);
    return this.#variables;
  }
  get webhookAttempts() {
    this.#webhookAttempts ??= attemptsRepository(this.#db, this.environmentId);
    return this.#webhookAttempts;
  }
  get webhookEndpoints() {
    this.#webhookEndpoints ??= webhookEndpointsRepository(this.#db, this.environmentId, this.#encryptionKey);
    return this.#webhookEndpoints;
  }
  get workflowVersions() {
    this.#workflowVersions ??= versionsRepository(this.#db, this.environmentId);
    return this.#workflowVersions;
  }
  get workflows() {
    this.#workflows ??= workflowsRepository(this.#db, this.environmentId);
    return this.#workflows;
  }

  messageStats(query: Parameters<typeof messageStats>[3]) {
    return messageStats(this.#db, this.#logs, this.environmentId, query);
  }
}

export const dataFor = (db: Db, environmentId: string, encryptionKey: string | undefined, logs: LogStore) =>
  new Data(db, environmentId, encryptionKey, logs);

/** `dataFor` from a Worker's bindings: the environment's repositories on its own D1 and the log's shards, with its encryption key. */
export const dataOf = (env: Bindings, environmentId: string): Data =>
  dataFor(createDb(env.DB), environmentId, env.ENCRYPTION_KEY, new LogStore(env));

declare module "../env" {
  /** `c.var.data`'s type, filled in here because env.ts names no feature (see .dependency-cruiser.cjs). */
  interface EnvironmentData extends Data {}
}
