// The problem codes of the API and the status each answers with, with no imports: the server's
// errors and OpenAPI document and the dashboard's client all read them from here.

/** Stable machine codes and the HTTP status each one answers with. */
export const STATUS_BY_CODE = {
  bad_request: 400,
  validation_failed: 422,
  malformed_json: 400,
  unsupported_media_type: 415,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  workflow_not_found: 404,
  workflow_inactive: 422,
  workflow_exists: 409,
  workflow_key_immutable: 422,
  workflow_version_not_found: 404,
  workflow_changed: 412,
  workflow_version_conflict: 409,
  promotion_conflict: 409,
  layout_not_found: 404,
  layout_exists: 409,
  layout_content_missing: 422,
  layout_key_immutable: 422,
  layout_version_not_found: 404,
  layout_changed: 412,
  layout_version_conflict: 409,
  layout_in_use: 409,
  partial_not_found: 404,
  partial_exists: 409,
  partial_key_immutable: 422,
  partial_version_not_found: 404,
  partial_changed: 412,
  partial_version_conflict: 409,
  content_changed: 409,
  partial_in_use: 409,
  subscriber_not_found: 404,
  subscriber_exists: 409,
  variable_not_found: 404,
  variable_exists: 409,
  topic_not_found: 404,
  topic_exists: 409,
  tenant_not_found: 404,
  tenant_exists: 409,
  no_valid_recipients: 422,
  transaction_not_found: 404,
  transaction_conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
  invalid_tracking_link: 400,
  invalid_signature: 401,
  integration_not_found: 404,
  message_not_found: 404,
  suppression_not_found: 404,
  webhook_endpoint_not_found: 404,
  event_not_found: 404,
  secret_requires_resupply: 422,
  destination_not_allowed: 422,
  environment_not_found: 404,
  environment_exists: 409,
  api_key_not_found: 404,
  api_key_revoked: 409,
  api_key_expired: 409,
  invalid_idempotency_key: 400,
  idempotency_key_mismatch: 422,
  idempotency_key_in_flight: 409,
  application_not_found: 404,
  subscriber_hash_invalid: 401,
  context_hash_invalid: 401,
  workflow_critical: 422,
  workflow_too_deep: 422,
  too_many_paths: 422,
  workflow_triggers_itself: 422,
  limit_reached: 422,
  brand_version_not_found: 404,
  brand_changed: 412,
  translation_not_found: 404,
  translation_version_not_found: 404,
  translation_key_missing: 422,
  translation_changed: 412,
  proposal_not_found: 404,
  proposal_stale: 409,
  proposal_not_pending: 409,
  proposal_invalid: 422,
  proposal_patch_failed: 422,
  range_too_long: 422,
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof STATUS_BY_CODE;
export type ErrorStatus = (typeof STATUS_BY_CODE)[ErrorCode];

export const ERROR_CODES = Object.keys(STATUS_BY_CODE) as [ErrorCode, ...ErrorCode[]];

export const TITLE_BY_CODE: Record<ErrorCode, string> = {
  bad_request: "Bad request",
  validation_failed: "Validation failed",
  malformed_json: "Malformed JSON",
  unsupported_media_type: "Unsupported media type",
  unauthorized: "Unauthorized",
  forbidden: "Forbidden",
  not_found: "Not found",
  method_not_allowed: "Method not allowed",
  workflow_not_found: "Workflow not found",
  workflow_inactive: "Workflow inactive",
  workflow_exists: "Workflow already exists",
  workflow_key_immutable: "Workflow key is immutable",
  workflow_version_not_found: "Workflow version not found",
  workflow_changed: "Workflow changed",
  workflow_version_conflict: "Workflow version conflict",
  promotion_conflict: "Promotion conflict",
  layout_not_found: "Layout not found",
  layout_exists: "Layout already exists",
  layout_content_missing: "Layout content missing",
  layout_key_immutable: "Layout key is immutable",
  layout_version_not_found: "Layout version not found",
  layout_changed: "Layout changed",
  layout_version_conflict: "Layout version conflict",
  layout_in_use: "Layout in use",
  partial_not_found: "Partial not found",
  partial_exists: "Partial already exists",
  partial_key_immutable: "Partial key is immutable",
  partial_version_not_found: "Partial version not found",
  partial_changed: "Partial changed",
  partial_version_conflict: "Partial version conflict",
  content_changed: "Content changed",
  partial_in_use: "Partial in use",
  subscriber_not_found: "Subscriber not found",
  subscriber_exists: "Subscriber already exists",
  variable_not_found: "Variable not found",
  variable_exists: "Variable already exists",
  topic_not_found: "Topic not found",
  topic_exists: "Topic already exists",
  tenant_not_found: "Tenant not found",
  tenant_exists: "Tenant already exists",
  no_valid_recipients: "No valid recipients",
  transaction_not_found: "Transaction not found",
  transaction_conflict: "Transaction conflict",
  payload_too_large: "Payload too large",
  rate_limited: "Rate limited",
  invalid_tracking_link: "Invalid tracking link",
  invalid_signature: "Invalid signature",
  integration_not_found: "Integration not found",
  message_not_found: "Message not found",
  suppression_not_found: "Suppression not found",
  webhook_endpoint_not_found: "Webhook endpoint not found",
  event_not_found: "Event not found",
  secret_requires_resupply: "Secret requires re-supply",
  destination_not_allowed: "Destination not allowed",
  environment_not_found: "Environment not found",
  environment_exists: "Environment already exists",
  api_key_not_found: "API key not found",
  api_key_revoked: "API key revoked",
  api_key_expired: "API key expired",
  invalid_idempotency_key: "Invalid idempotency key",
  idempotency_key_mismatch: "Idempotency key mismatch",
  idempotency_key_in_flight: "Idempotency key in flight",
  application_not_found: "Application not found",
  subscriber_hash_invalid: "Subscriber hash invalid",
  context_hash_invalid: "Context hash invalid",
  workflow_critical: "Workflow is critical",
  workflow_too_deep: "Workflow too deep",
  too_many_paths: "Too many paths",
  workflow_triggers_itself: "Workflow triggers itself",
  limit_reached: "Limit reached",
  brand_version_not_found: "Brand version not found",
  brand_changed: "Brand changed",
  translation_not_found: "Translation not found",
  translation_version_not_found: "Translation version not found",
  translation_key_missing: "Translation key missing",
  translation_changed: "Translation changed",
  proposal_not_found: "Proposal not found",
  proposal_stale: "Proposal stale",
  proposal_not_pending: "Proposal not pending",
  proposal_invalid: "Proposal invalid",
  proposal_patch_failed: "Proposal patch failed",
  range_too_long: "Range too long",
  internal_error: "Internal error",
};

/** When each code is answered, for people: docs/reference/errors.md is generated from it (`npm run reference`). */
export const MEANING_BY_CODE: Record<ErrorCode, string> = {
  bad_request: "any other client error; the status is kept",
  validation_failed:
    "the body, query or path does not match the schema (each field in `errors`), or the payload does not match the workflow's `payloadSchema`, or a workflow's Liquid template does not parse (its path and the parser's message in `errors`)",
  malformed_json: "the body is not valid JSON",
  unsupported_media_type: "a body that is not `application/json`",
  unauthorized: "no key, an unknown key, a revoked key or one past its rotation overlap, or an ended dashboard session",
  forbidden:
    "an environment key on the admin API, an environment key naming another environment in `Clarion-Environment`, or the admin credential on an environment route without `Clarion-Environment`",
  not_found: "no such route",
  method_not_allowed: "the route exists, but not with this method",
  workflow_not_found: "no workflow with that key in this environment",
  workflow_inactive: 'triggering a workflow with `"active": false`',
  workflow_exists: "creating a workflow whose key is taken",
  workflow_key_immutable:
    "`PUT /v1/workflows/{key}` with another `key` in the body: a key never changes; create the workflow under the new key (Duplicate), then delete the old one",
  workflow_version_not_found: "a version number (in the path, `from`/`to` of a diff, or a revert's `version`) this workflow does not have",
  workflow_changed:
    "`PUT` or `DELETE /v1/workflows/{key}` with an `If-Match` that is not the workflow's current `ETag`: someone saved it since you read it; `GET` it again, redo your change, send the new `ETag`",
  workflow_version_conflict:
    "`POST /v1/workflows/{key}/revert` with an `If-Match` that is not the current `ETag`: the workflow changed since you chose what to restore",
  promotion_conflict:
    "a workflow of the target environment changed while the promotion ran: the workflows before it in the answer's `detail` were promoted, the rest not; diff again and promote what is left",
  layout_not_found: "no layout with that key in this environment (a path, or an email step's `layout`)",
  layout_exists: "creating a layout whose key is taken",
  layout_content_missing: "a layout's `html` (or `text`, when given) without `{{ content }}` exactly once; `errors` names the field",
  layout_key_immutable: "`PUT /v1/layouts/{key}` with another `key` in the body: a key never changes",
  layout_version_not_found: "a version number this layout does not have",
  layout_changed: "`PUT` or `DELETE /v1/layouts/{key}` with an `If-Match` that is not the layout's current `ETag`",
  layout_version_conflict: "`POST /v1/layouts/{key}/revert` with an `If-Match` that is not the current `ETag`",
  layout_in_use: "deleting a layout that email steps name; `errors` lists the workflows",
  partial_not_found: "no partial with that key in this environment",
  partial_exists: "creating a partial whose key is taken",
  partial_key_immutable: "`PUT /v1/partials/{key}` with another `key` in the body: a key never changes",
  partial_version_not_found: "a version number this partial does not have",
  partial_changed: "`PUT` or `DELETE /v1/partials/{key}` with an `If-Match` that is not the partial's current `ETag`",
  partial_version_conflict: "`POST /v1/partials/{key}/revert` with an `If-Match` that is not the current `ETag`",
  content_changed:
    "`POST /v1/content/push` (`clarion push`) while another save changed a resource the push changes: nothing was changed; diff and push again",
  partial_in_use: "deleting a partial that a workflow, layout or partial renders; `errors` lists them",
  subscriber_not_found: "reading, erasing or setting preferences of an unknown subscriber",
  subscriber_exists: "Novu's `POST /novu/v2/subscribers?failIfExists=true` for a subscriber that exists",
  variable_not_found: "no variable with that key in this environment",
  variable_exists: "creating a variable whose key is taken",
  topic_not_found: "an unknown topic key; a trigger whose only recipients are unknown topics",
  topic_exists: "creating a topic whose key is taken",
  tenant_not_found: "no tenant with that id in this environment (also a trigger naming an unknown tenant by id)",
  tenant_exists: "creating a tenant whose id is taken",
  no_valid_recipients: "none of the recipients in `to` is valid",
  transaction_not_found: "cancelling or reading an unknown `transactionId`",
  transaction_conflict: "a `transactionId` reused with a different body",
  payload_too_large: "payload over 512 KiB, body over 1 MiB, bulk body over 8 MiB, status webhook over 256 KiB",
  rate_limited:
    "an environment's, a key's or a client's limit is spent (see [Rate limits](../guides/rate-limits.md)); `Retry-After` says when to retry",
  invalid_tracking_link: "a tracking link (`/t/o/...`, `/t/c/...`) whose signature does not verify",
  invalid_signature: "a provider's status webhook whose signature (or credentials) does not verify with the integration's secret",
  integration_not_found: "no integration with that id in this environment",
  message_not_found: "no message with that id in this environment",
  suppression_not_found: "lifting an address that is not on the suppression list",
  webhook_endpoint_not_found: "no webhook endpoint with that id in this environment",
  event_not_found: "no event with that id in this environment's event log",
  secret_requires_resupply:
    "an integration update that moves a destination (`baseUrl`, or a credential saying where requests go) but keeps a stored secret; `errors` names the secrets to send again in full",
  destination_not_allowed:
    "a destination (`baseUrl`, a URL credential, a chat webhook or Web Push endpoint, a fetch step's literal `request.url`) that is not `https://` to a public host",
  environment_not_found: "an unknown environment slug (admin API, or `Clarion-Environment`)",
  environment_exists: "creating an environment whose slug is taken",
  api_key_not_found: "no API key with that id",
  api_key_revoked: "rotating a key that is revoked",
  api_key_expired: "rotating a key that has expired (create a new key instead)",
  invalid_idempotency_key: "an `Idempotency-Key` that is not 1 to 255 printable ASCII characters",
  idempotency_key_mismatch: "an `Idempotency-Key` reused with another request",
  idempotency_key_in_flight: "a request with the same `Idempotency-Key` is still running; `Retry-After` says when to retry",
  application_not_found: "an Inbox session (`POST /novu/v1/inbox/session`) naming an `applicationIdentifier` no environment has",
  subscriber_hash_invalid:
    "an Inbox session without the right `subscriberHash` (hex HMAC-SHA256 of the subscriberId with the environment's `hmacSecret`) where `hmacRequired` is on",
  context_hash_invalid:
    "an Inbox session with a `context` but without the right `contextHash` (hex HMAC-SHA256 of the context's canonical JSON with the environment's `hmacSecret`) where `hmacRequired` is on",
  workflow_too_deep: "saving a workflow whose branches nest more than 5 deep (the branch's path in `errors`)",
  too_many_paths: "saving a branch with more than 10 paths (its path in `errors`)",
  workflow_triggers_itself: "saving a workflow with a `trigger_workflow` step that names the workflow itself",
  workflow_critical: "an Inbox preference change for a critical workflow: its notifications cannot be turned off",
  limit_reached:
    "creating a webhook endpoint in an environment that has as many as the deployment allows (`WEBHOOK_ENDPOINTS_MAX`, default 20): delete one first",
  brand_version_not_found: "a brand version (in the path, `from`/`to` of a diff, or a revert's `version`) this environment does not have",
  brand_changed:
    "`PUT /v1/brand` with an `If-Match` that is not the brand's current `ETag`: someone saved it since you read it; `GET` it again and redo your change",
  translation_not_found: "no translations for that locale in this environment",
  translation_version_not_found: "a version number this locale's translations do not have",
  translation_key_missing:
    'a workflow whose template uses `{{ "key" | t }}` with a key the environment\'s default locale lacks; `errors` names the template field and the key',
  translation_changed:
    "`PUT`, `DELETE` or `POST …/revert` on `/v1/translations/{locale}` with an `If-Match` that is not the locale's current `ETag`: someone saved it since you read it; `GET` it again and redo your change",
  proposal_not_found: "no proposal with that id in this environment",
  proposal_stale:
    "applying a proposal whose resource changed since the version it was made from (`baseVersion`; or, for a new resource, it was created since): propose again from the current version",
  proposal_not_pending: "applying or rejecting a proposal that was already applied or rejected",
  proposal_invalid:
    "applying a proposal whose content failed validation when it was proposed (`validation.errors`), or fails the save's checks now (`errors`)",
  proposal_patch_failed:
    "a proposal's `patch` that cannot be applied to the current content (a missing path, a failed `test`); `errors` names the operation",
  range_too_long:
    "an analytics read (`/v1/analytics/*`) whose `from`–`to` spans more than 92 days, once aligned to its granularity; the field is in `errors`",
  internal_error: "a failure on Clarion's side; the answer never carries its message, the `requestId` finds it in the logs",
};

/** The code a bare HTTP status stands for when nothing more specific was said (a 4xx thrown by middleware). */
export const codeForStatus = (status: number): ErrorCode => {
  switch (status) {
    case 400:
      return "bad_request";
    case 401:
      return "unauthorized";
    case 403:
      return "forbidden";
    case 404:
      return "not_found";
    case 405:
      return "method_not_allowed";
    case 413:
      return "payload_too_large";
    case 415:
      return "unsupported_media_type";
    case 422:
      return "validation_failed";
    case 429:
      return "rate_limited";
    default:
      return status >= 500 ? "internal_error" : "bad_request";
  }
};
