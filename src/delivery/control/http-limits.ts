/**
 * The figures of a fetch step, in one place: docs/guides/http-fetch-step.md states them and
 * test/docs-examples/stated-facts.test.ts holds the page to them.
 */

/**
 * Seconds before each retry: the second attempt goes at once, in the same run; the third and the
 * fourth come back to the step from the run's home (an open `retrying` outcome parks the recipient).
 */
export const HTTP_RETRY_DELAYS_SECONDS = [0, 30, 60] as const;
export const HTTP_MAX_ATTEMPTS = HTTP_RETRY_DELAYS_SECONDS.length + 1;
/** A Retry-After longer than the schedule is honoured up to this long. */
export const HTTP_MAX_RETRY_AFTER_SECONDS = 300;
/** Requests in flight at once for one chunk; the invocation's six connections bound all its chunks together (lib/connection-slots.ts). */
export const HTTP_PARALLEL_REQUESTS = 6;

/** Response headers later steps may read; everything else (cookies, auth challenges) is dropped. */
export const RESPONSE_HEADERS: readonly string[] = [
  "content-type",
  "content-length",
  "etag",
  "last-modified",
  "location",
  "retry-after",
  "x-request-id",
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
];
/** ... and every header whose name starts with this, for services built to talk to Clarion. */
export const RESPONSE_HEADER_PREFIX = "x-clarion-";
/** A JSON body larger than this fails the step (`response_too_large`): it would be stored per recipient. */
export const MAX_JSON_BODY_BYTES = 256 * 1024;
/** A body that is not JSON is kept as text, cut to this many characters. */
export const MAX_TEXT_BODY_CHARS = 4096;
