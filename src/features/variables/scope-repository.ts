import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { variables } from "../../db/schema";

/** One environment's variables, and the key to seal their secrets with. */
export function variableScope(db: Db, environmentId: string, encryptionKey: string | undefined) {
  const byKey = (key: string) => and(eq(variables.environmentId, environmentId), eq(variables.key, key));
  return { db, environmentId, encryptionKey, byKey };
}

export type VariableScope = ReturnType<typeof variableScope>;
