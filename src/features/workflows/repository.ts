import type { Db } from "../../db/client";
import type { LogStore } from "../../durable-objects/client/log-store";
import { tombstonePurge, workflowDeletes } from "./deletes-repository";
import { workflowReads } from "./reads-repository";
import { workflowSaves } from "./saves-repository";
import { workflowScope } from "./scope-repository";

export { definitionOf, type WriteOutcome, type WriteRecord } from "./shapes";

/** Workflows of one environment: the environment is fixed once, so no query can forget it. */
export function workflowsRepository(db: Db, environmentId: string, logs: LogStore) {
  const scope = workflowScope(db, environmentId);
  return { ...workflowReads(scope, logs), ...workflowSaves(scope), ...workflowDeletes(scope), ...tombstonePurge(scope, logs) };
}
