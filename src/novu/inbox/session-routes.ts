// `POST /novu/v1/inbox/session`: a browser proves who it is for (the subscriberHash its backend
// computed) and gets a session token. The application identifier is public; the HMAC secret and the
// environment's keys never reach a browser.
import { unscopedDb } from "../../db/unscoped";
import { ApiError } from "../../lib/errors";
import { limitFailedAuth, limitKeyless } from "../../lib/middleware/rate-limit";
import { json } from "../../lib/openapi";
import { ratesFor } from "../../lib/rate-limit/policy";
import { settingsByApplicationIdentifier, subscriberHash } from "../../features/in-app/settings-repository";
import { timingSafeEqual } from "../../providers/signatures";
import { envelope } from "../shapes";
import { writeSessionProfile } from "../subscriber-store";
import { inboxRoute, inboxRouter } from "./routing";
import { InboxSession, InboxSessionRequest, MAX_SNOOZE_HOURS } from "./schemas";
import { issueSessionToken } from "./session-token";
import { applyDefaultSchedule } from "./default-schedule";
import { dataOf } from "../../features/data";
import { contextHash, contextIds, contextKey } from "../../contract/inbox-context";

export const inboxSessionRoutes = inboxRouter();

inboxSessionRoutes.openapi(
  inboxRoute({
    method: "post",
    path: "/v1/inbox/session",
    session: false,
    summary: "Start an Inbox session",
    description:
      "Finds the environment by `applicationIdentifier`, checks `subscriberHash` = hex HMAC-SHA256(hmacSecret, subscriberId) when the environment requires it (and, with a `context`, `contextHash` = hex HMAC-SHA256(hmacSecret, the context's canonical JSON)), scopes the session to the context (exactly its notifications; without one, those of no context), creates a missing subscriber with the profile fields sent (an existing one is changed only when `sessionProfileWrites` is `always`, and then only where a field differs; the change is recorded with reason `inbox`), stores `defaultSchedule` as their delivery schedule if they have none, and answers a session token valid 24 hours.",
    request: { body: { required: true, content: json(InboxSessionRequest) } },
    responses: { 201: { description: "The session", content: json(envelope(InboxSession)) } },
    errors: ["application_not_found", "subscriber_hash_invalid", "context_hash_invalid"],
  }),
  async (c) => {
    const body = c.req.valid("json");
    const { subscriberId: nested, ...profile } = body.subscriber ?? { subscriberId: undefined };
    const subscriberId = (nested || body.subscriberId)!;
    const settings = await settingsByApplicationIdentifier(unscopedDb(c.env), c.env.ENCRYPTION_KEY, body.applicationIdentifier);
    // Guessing identifiers or hashes counts as failed authentications, as guessing API keys does.
    if (!settings)
      throw (
        (await limitFailedAuth(c)) ??
        new ApiError("application_not_found", "No environment has this applicationIdentifier: copy it from GET /v1/in-app/settings.")
      );
    const { environmentId } = settings;
    if (settings.hmacRequired && !timingSafeEqual(body.subscriberHash ?? "", await subscriberHash(settings.hmacSecret, subscriberId))) {
      throw (
        (await limitFailedAuth(c)) ??
        new ApiError(
          "subscriber_hash_invalid",
          "This environment requires `subscriberHash`: hex HMAC-SHA256 of the subscriberId with the environment's hmacSecret, computed on your backend.",
        )
      );
    }
    // The context proves itself as the subscriber does: a browser may not widen its view to another tenant's.
    const context = body.context && Object.keys(body.context).length ? body.context : undefined;
    if (settings.hmacRequired && context && !timingSafeEqual(body.contextHash ?? "", await contextHash(settings.hmacSecret, context))) {
      throw (
        (await limitFailedAuth(c)) ??
        new ApiError(
          "context_hash_invalid",
          "This environment requires `contextHash` with a `context`: hex HMAC-SHA256 of the context's canonical JSON (keys sorted, no whitespace) with the environment's hmacSecret, computed on your backend.",
        )
      );
    }
    const ids = context ? contextIds(context) : {};
    const scope = { context: contextKey(ids), tenantId: ids.tenant ?? null };
    const data = dataOf(c.env, environmentId);
    c.set("data", data);
    // No key counts these requests: each one may write the subscriber, so the environment and the
    // subscriber have their own limits (the deployment's rates for an environment and for a key).
    const rates = ratesFor(c.env.RATE_LIMITS);
    const refused = await limitKeyless(c.env, [
      { name: "inbox_environment", identifier: environmentId, rate: rates.environment },
      { name: "inbox_subscriber", identifier: `${environmentId}:${subscriberId}`, rate: rates.key },
    ]);
    if (refused)
      throw new ApiError("rate_limited", "Too many Inbox sessions; retry after the time in `Retry-After`.", undefined, {
        headers: refused,
      });

    const feed = data.inAppFeed(subscriberId, { context: scope.context });
    // The browser's profile makes a missing subscriber; it changes an existing one only where the
    // environment allows it (the hash proves the subscriberId, never the email or phone sent with it).
    await writeSessionProfile(data, c.env, subscriberId, profile, settings.sessionProfileWrites);
    if (body.defaultSchedule) await applyDefaultSchedule(data, c.env, subscriberId, body.defaultSchedule);

    const now = new Date();
    const { unread } = await feed.counts({ snoozed: { value: false, now } });
    const token = await issueSessionToken(c.env.ENCRYPTION_KEY, { environmentId, subscriberId, ...scope }, now);
    const session = {
      token,
      totalUnreadCount: unread,
      unreadCount: { total: unread, severity: { high: 0, medium: 0, low: 0, none: unread } },
      removeNovuBranding: false,
      isDevelopmentMode: false,
      maxSnoozeDurationHours: MAX_SNOOZE_HOURS,
      applicationIdentifier: settings.applicationIdentifier,
    };
    return c.json({ data: session }, 201);
  },
);
