import { createDb, type Db } from "../db/client";
import type { LogStore } from "../durable-objects/client/log-store";
import { unscopedLogs } from "../durable-objects/client/unscoped-logs";
import { type FeedView, inboxFeed } from "../durable-objects/client/inbox-feed";
import type { Bindings } from "../env";
import { presentSubscribers } from "../db/queries/inbox-presence";
import { preferenceLinksRepository } from "../db/queries/preference-link-settings";
import { brandRepository } from "../db/queries/brand";
import { translationsRepository } from "../db/queries/translations";
import { activityPage } from "../db/queries/subscriber-activity";
import { createSubscriberIfMissing, upsertSubscribers } from "../db/queries/subscribers";
import { loadPreviewVariables, loadTemplateVariables } from "../db/queries/variables";
import { recordCancellation } from "../delivery/writes/trigger-writes";
import type { TriggerRecord } from "../jobs/trigger-record";
import { type AuditFilter, auditRepository } from "./audit/repository";
import { type AuditChange, type AuditContext, auditStatement } from "../db/queries/audit";
import { analyticsRepository } from "./analytics/repository";
import { applyStatuses } from "./messages/status-repository";
import { addressesOf } from "./subscribers/addresses-repository";
import { eraseRecords } from "./subscribers/erasure-repository";
import { findSubscriber } from "./subscribers/repository";
import { existingTopicKeys, workflowGateRows } from "./triggers/accept-repository";
import { recordLastTriggered } from "./workflows/last-triggered-repository";
import { cancelPendingRetries, eventsToReplay } from "./events/endpoints/replay-repository";
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
import { tenantsRepository } from "./tenants/repository";
import { tenantPreferencesRepository } from "./tenants/subscriber-preferences-repository";
import { attemptsRepository } from "./events/endpoints/attempts-repository";
import { webhookEndpointsRepository } from "./events/endpoints/repository";
import { workflowsRepository } from "./workflows/repository";
import { layoutsRepository } from "./layouts/repository";
import { partialsRepository } from "./partials/repository";
import { versionsRepository } from "./workflows/versions/repository";
import { proposalsRepository } from "./proposals/repository";

/** The arguments of a query function after its D1 handle. */
type AfterDb<F> = F extends (db: Db, ...rest: infer R) => unknown ? R : never;

/**
 * Every repository of one environment, bound to it once: a caller holding this object has no way
 * to name another environment's rows. Requests get it as `c.var.data` (set by the auth middleware
 * from the key's environment; the accept routes read it as `c.get("data")`, which builds no
 * object); work without a request builds it from the environmentId it carries.
 * Making one is cheap, as every authenticated request (the accept path included) does and most
 * read one or two repositories of it: each is built when first read (getters on the class, not
 * per-object properties), and no query runs until a method is called.
 *
 * This is the only way to one environment's rows: only src/db/ and this file build a D1 handle
 * (`createDb`, fenced by .dependency-cruiser.cjs), and a route names its environment as
 * `c.var.data.environmentId` (lint/environment-id.grit refuses a separate variable for it). Work
 * that is no one environment's goes through `unscopedDb` (db/unscoped.ts).
 */
export class Data {
  #analytics?: ReturnType<typeof analyticsRepository>;
  #brand?: ReturnType<typeof brandRepository>;
  #translations?: ReturnType<typeof translationsRepository>;
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
  #tenants?: ReturnType<typeof tenantsRepository>;
  #tenantPreferences?: ReturnType<typeof tenantPreferencesRepository>;
  #webhookAttempts?: ReturnType<typeof attemptsRepository>;
  #webhookEndpoints?: ReturnType<typeof webhookEndpointsRepository>;
  #workflowVersions?: ReturnType<typeof versionsRepository>;
  #workflows?: ReturnType<typeof workflowsRepository>;
  #layouts?: ReturnType<typeof layoutsRepository>;
  #partials?: ReturnType<typeof partialsRepository>;
  #proposals?: ReturnType<typeof proposalsRepository>;

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

  get analytics() {
    this.#analytics ??= analyticsRepository(this.#db, this.environmentId, this.#logs);
    return this.#analytics;
  }
  get brand() {
    this.#brand ??= brandRepository(this.#db, this.environmentId);
    return this.#brand;
  }
  get translations() {
    this.#translations ??= translationsRepository(this.#db, this.environmentId);
    return this.#translations;
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
  get tenants() {
    this.#tenants ??= tenantsRepository(this.#db, this.environmentId);
    return this.#tenants;
  }
  /** Subscribers' preferences inside one tenant. */
  get tenantPreferences() {
    this.#tenantPreferences ??= tenantPreferencesRepository(this.#db, this.environmentId);
    return this.#tenantPreferences;
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
    this.#workflows ??= workflowsRepository(this.#db, this.environmentId, this.#logs);
    return this.#workflows;
  }

  get layouts() {
    this.#layouts ??= layoutsRepository(this.#db, this.environmentId);
    return this.#layouts;
  }
  get partials() {
    this.#partials ??= partialsRepository(this.#db, this.environmentId);
    return this.#partials;
  }
  /** Changes waiting for a person (proposals/). */
  get proposals() {
    this.#proposals ??= proposalsRepository(this.#db, this.environmentId);
    return this.#proposals;
  }

  messageStats(query: Parameters<typeof messageStats>[3]) {
    return messageStats(this.#db, this.#logs, this.environmentId, query);
  }

  /** The environment's audit log: whatever the filter says, only this environment's entries. */
  get audit() {
    const log = auditRepository(this.#db);
    const own = (filter: AuditFilter): AuditFilter => ({ ...filter, environmentId: this.environmentId });
    return {
      page: (filter: AuditFilter, limit: number, cursor?: string) => log.page(own(filter), limit, cursor),
      ndjson: (filter: AuditFilter) => log.ndjson(own(filter)),
      /** An entry for something that is not a change of one row in this batch (an MCP tool call): written on its own. */
      record: (context: AuditContext, change: Omit<AuditChange, "environmentId">) =>
        auditStatement(this.#db, context, { ...change, environmentId: this.environmentId }, "always").run(),
    };
  }

  /** What the accept path reads of the named workflows and topics, each in one D1 batch, and the workflows' last-triggered times it writes. */
  get accept() {
    return {
      workflowGateRows: this.#bound(workflowGateRows),
      existingTopicKeys: this.#bound(existingTopicKeys),
      recordLastTriggered: this.#bound(recordLastTriggered),
    };
  }

  /** What a replay to an endpoint of this environment sends again, and the retries it cancels. */
  get replay() {
    return {
      eventsToReplay: (...args: AfterDb<typeof eventsToReplay>) => eventsToReplay(this.#db, ...args),
      cancelPendingRetries: this.#bound(cancelPendingRetries),
    };
  }

  /** Records a trigger of this environment as cancelled; answers the events it wrote. */
  recordCancellation(record: TriggerRecord, cancelledMessages: number, now: number) {
    if (record.environmentId !== this.environmentId) throw new Error("a trigger of another environment");
    return recordCancellation(this.#db, this.#logs, record, cancelledMessages, now);
  }

  /** Writes of subscriber profiles (the reads are `subscribers`). */
  get subscriberWrites() {
    return {
      upsert: this.#bound(upsertSubscribers),
      createIfMissing: this.#bound(createSubscriberIfMissing),
      /** The stored profile with its unmasked channels, as a write answers it. */
      find: this.#bound(findSubscriber),
      /** Removes a subscriber's records and redacts their messages (see subscribers/erasure.ts). */
      erase: this.#bound(eraseRecords),
    };
  }

  /** A subscriber's timeline page: their activity and the suppressions of their addresses. */
  async activity(subscriberId: string, after: { createdAt: number; id: string } | null, limit: number) {
    const { normalised } = await addressesOf(this.#db, this.environmentId, subscriberId);
    return activityPage(this.#db, { environmentId: this.environmentId, subscriberId, addresses: normalised }, after, limit);
  }

  /** The variables a template renders with, secrets in clear (delivery's view) and their values to redact. */
  templateVariables() {
    return loadTemplateVariables(this.#db, this.environmentId, this.#encryptionKey);
  }
  /** The variables a preview renders with, secrets as placeholders. */
  previewVariables() {
    return loadPreviewVariables(this.#db, this.environmentId);
  }

  /** One subscriber's Inbox rows: in their log shard, with D1's from before the feed left it. */
  inAppFeed(subscriberId: string, view?: FeedView) {
    return inboxFeed(this.#db, this.#logs, this.environmentId, subscriberId, view);
  }
  /** The subscribers with an open Inbox socket, at most `limit`. */
  presentSubscribers(limit: number) {
    return presentSubscribers(this.#db, this.environmentId, limit);
  }
  /**
   * Tracking reports by message id (the Inbox's read, seen and archived): the ids are this
   * environment's, read from its feed, and the update goes by id as a provider's report does.
   */
  applyStatuses(updates: Parameters<typeof applyStatuses>[2], queue?: Parameters<typeof applyStatuses>[3]) {
    return applyStatuses(this.#db, this.#logs, updates, queue);
  }

  /**
   * A repository of a layer this file may not import (the Novu layer's), bound to this
   * environment as the getters above are: its maker gets the handle and the id, never the caller.
   */
  repository<R>(make: (db: Db, environmentId: string) => R): R {
    return make(this.#db, this.environmentId);
  }

  /** `fn` with this environment's handle and id filled in. */
  #bound<A extends unknown[], R>(fn: (db: Db, environmentId: string, ...rest: A) => R): (...rest: A) => R {
    return (...rest) => fn(this.#db, this.environmentId, ...rest);
  }
}

export const dataFor = (db: Db, environmentId: string, encryptionKey: string | undefined, logs: LogStore) =>
  new Data(db, environmentId, encryptionKey, logs);

/** `dataFor` from a Worker's bindings: the environment's repositories on its own D1 and the log's shards, with its encryption key. */
export const dataOf = (env: Bindings, environmentId: string): Data =>
  dataFor(createDb(env.DB), environmentId, env.ENCRYPTION_KEY, unscopedLogs(env));

declare module "../env" {
  /** `c.var.data`'s type, filled in here because env.ts names no feature (see .dependency-cruiser.cjs). */
  interface EnvironmentData extends Data {}
}
