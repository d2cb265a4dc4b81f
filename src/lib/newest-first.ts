/**
 * Newest first by (createdAt, id): the keyset every page of the log is merged in (messages,
 * captures), so one cursor walks every shard and D1's rows from before the log.
 */
export const newestFirst = <T extends { createdAt: number; id: string }>(a: T, b: T) =>
  b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
