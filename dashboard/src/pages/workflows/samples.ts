// The preview's sample payload and subscriber per workflow, kept in the browser (localStorage, per
// environment) so a save, a reload or the next visit finds the sample last typed. A new workflow's
// sample lives in memory until it is saved under its key.
import { payloadFromTemplates, samplePayload } from "./describe";

export interface Samples {
  payload: string;
  subscriber: string;
  /** Sample answers of fetch steps by step id (`{ "<id>": { "status": 200, "body": {…} } }`), as JSON text. */
  responses?: string;
}

const DEFAULT_SUBSCRIBER = {
  subscriberId: "preview-user",
  firstName: "Ada",
  email: "ada@example.com",
  phone: "+41791234567",
  locale: "en",
};
const unsaved = new Map<string, Samples>();
const storageKey = (environment: string, key: string) => `clarion.samples.${environment}.${key}`;

function stored(environment: string, key: string): Samples | undefined {
  if (!key) return unsaved.get(environment);
  try {
    const value: unknown = JSON.parse(localStorage.getItem(storageKey(environment, key)) ?? "null");
    if (typeof value === "object" && value !== null) {
      const { payload, subscriber, responses } = value as Record<string, unknown>;
      if (typeof payload === "string" && typeof subscriber === "string")
        return { payload, subscriber, ...(typeof responses === "string" ? { responses } : {}) };
    }
  } catch {
    // A sample that cannot be read is a sample not kept.
  }
  return undefined;
}

/** The sample last kept for this workflow; else one from its payload schema, or from what its templates read. */
export function samplesFor(environment: string, key: string, schema: Record<string, unknown> | null, steps: unknown = []): Samples {
  return (
    stored(environment, key) ?? {
      payload: JSON.stringify(schema ? samplePayload(schema) : payloadFromTemplates(steps), null, 2),
      subscriber: JSON.stringify(DEFAULT_SUBSCRIBER, null, 2),
    }
  );
}

export function keepSamples(environment: string, key: string, samples: Samples): void {
  if (!key) return void unsaved.set(environment, samples);
  try {
    localStorage.setItem(storageKey(environment, key), JSON.stringify(samples));
  } catch {
    // Storage full or refused: the sample lasts as long as the page.
  }
}
