import { describe, expect, it } from "vitest";
import { keyPrefix, newApiKey } from "../../scripts/bootstrap.mjs";
import { generateApiKey } from "../../src/features/environments/key-format";

// `npm start` writes keys straight into D1; the Worker makes them through the admin API. One format for both.
describe("API key format", () => {
  it.each(["development", "production", "staging-eu"])("is the same from npm start and the admin API for %s", (slug) => {
    const fromScript = newApiKey(slug);
    const fromWorker = generateApiKey(slug);
    const shape = (key: string) => key.replace(/_[A-Za-z0-9]{32}$/, "_<random>");
    expect(shape(fromScript)).toBe(shape(fromWorker.key));
    expect(keyPrefix(fromScript)).toBe(fromScript.slice(0, fromScript.lastIndexOf("_") + 7));
    expect(fromWorker.prefix).toBe(fromWorker.key.slice(0, fromWorker.key.lastIndexOf("_") + 7));
  });
});
