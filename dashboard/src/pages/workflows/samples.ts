// The preview's sample payload and subscriber per workflow, kept for the session's life in memory so
// a save, a reload of the workflow or a visit to another page does not throw a typed sample away.
import { samplePayload } from "./describe";

export interface Samples {
  payload: string;
  subscriber: string;
}

const DEFAULT_SUBSCRIBER = {
  subscriberId: "preview-user",
  firstName: "Ada",
  email: "ada@example.com",
  phone: "+41791234567",
  locale: "en",
};
const kept = new Map<string, Samples>();

export function samplesFor(key: string, schema: Record<string, unknown> | null): Samples {
  return (
    kept.get(key) ?? {
      payload: JSON.stringify(samplePayload(schema), null, 2),
      subscriber: JSON.stringify(DEFAULT_SUBSCRIBER, null, 2),
    }
  );
}

export const keepSamples = (key: string, samples: Samples) => void kept.set(key, samples);
