// The format of an environment's API keys, kept free of bindings so scripts/bootstrap.mjs's copy
// of it can be tested against it in Node (test/scripts/keys.test.ts).

const ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/** 32 random base62 characters. */
export const randomBody = () => Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => ALPHABET[b % ALPHABET.length]).join("");
/**
 * The environment's part of its keys: `dev` and `prod` for the two environments `npm start` makes,
 * else the slug without its `-`. scripts/bootstrap.mjs follows the same rule (a test holds them together).
 */
export const keyTag = (slug: string) => (slug === "development" ? "dev" : slug === "production" ? "prod" : slug.replace(/[^a-z0-9]/g, ""));

/** Random characters shown in a key's prefix: enough to tell an environment's keys apart, too few to guess the rest. */
export const PREFIX_RANDOM_CHARS = 6;

/** `ck_<tag>_` and the first random characters: what lists show to recognise a key, e.g. `ck_prod_AbC1x9`. */
export const keyPrefixOf = (key: string) => key.slice(0, key.lastIndexOf("_") + 1 + PREFIX_RANDOM_CHARS);

/** `ck_<tag>_<32 random base62 characters>` (see `keyTag`), and its prefix. */
export function generateApiKey(slug: string): { key: string; prefix: string } {
  const key = `ck_${keyTag(slug)}_${randomBody()}`;
  return { key, prefix: keyPrefixOf(key) };
}
