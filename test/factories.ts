import { env } from "cloudflare:test";
import { createDb } from "../src/db/client";
import { apiKeys, environments } from "../src/db/schema";
import { generateApiKey } from "../src/features/environments/api-keys";
import { sha256Hex } from "../src/lib/crypto";
import { newId } from "../src/lib/ids";

let counter = 0;
export const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++counter}`;

/** A fresh environment with one API key: tests never share data through it. */
export async function createEnvironment(slug = unique("env")) {
  const id = newId("env");
  const { key, prefix } = generateApiKey(slug);
  const db = createDb(env.DB);
  const now = new Date();
  await db.batch([
    db.insert(environments).values({ id, name: slug, slug, createdAt: now }),
    db.insert(apiKeys).values({ id: newId("key"), environmentId: id, name: "test", prefix, hash: await sha256Hex(key), createdAt: now }),
  ]);
  return { id, key };
}
