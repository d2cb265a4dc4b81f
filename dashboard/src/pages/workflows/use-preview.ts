import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useApi } from "../../api/context";
import type { components } from "../../api/openapi";
import { useDebounced } from "../../ui/use-debounced";
import { parseObject, type Step } from "./model";
import { previewQuery } from "./queries";
import type { Samples } from "./samples";

type PreviewSubscriber = components["schemas"]["PreviewSubscriber"];
type DraftPreviewRequest = components["schemas"]["DraftPreviewRequest"];
export const PREVIEW_DELAY_MS = 300;

/**
 * The preview of the draft for the samples, asked again as they or the steps change (debounced;
 * nothing is asked while a sample is not valid JSON). Shared by the preview panel and the tree,
 * which marks the path the sample takes.
 */
export function usePreview(workflowKey: string, name: string, steps: Step[], samples: Samples) {
  const payload = parseObject(samples.payload, "payload");
  const subscriber = parseObject(samples.subscriber, "subscriber");
  const responses = parseObject(samples.responses ?? "", "sample responses");
  const request =
    payload.ok && subscriber.ok && responses.ok
      ? // A string, so the debounce and the query key compare by value.
        JSON.stringify({
          workflow: { key: workflowKey.slice(0, 64) || "draft", name: name.slice(0, 256), steps },
          payload: payload.value ?? {},
          subscriber: (subscriber.value ?? {}) as PreviewSubscriber,
          ...(responses.value ? { responses: responses.value as DraftPreviewRequest["responses"] } : {}),
        } satisfies Partial<DraftPreviewRequest>)
      : null;
  const api = useApi();
  const settled = useDebounced(request, PREVIEW_DELAY_MS);
  const query = useQuery({
    ...previewQuery(api, settled),
    enabled: settled !== null && steps.length > 0,
    placeholderData: keepPreviousData,
    retry: false,
  });
  const invalid = [payload, subscriber, responses].flatMap((p) => (p.ok ? [] : [p.message]));
  return {
    query,
    invalid,
    pending: query.isFetching || request !== settled,
    payloadOk: payload.ok,
    subscriberOk: subscriber.ok,
    responsesOk: responses.ok,
  };
}

export type Preview = ReturnType<typeof usePreview>;
