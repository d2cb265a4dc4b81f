// Who is signed in, and the environment every page works in. An environment's API key reaches
// that environment alone; the admin credential reaches every environment, one at a time, named
// by the `Clarion-Environment` header of each request.
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useRef, useState } from "react";
import { createApi, SESSION_MODE, unwrap } from "../api/client";
import { ApiContext } from "../api/context";
import type { components } from "../api/openapi";
import { ApiError } from "../api/problem";
import { environmentInAddress } from "../app/environment-address";

export type Who = components["schemas"]["DashboardSession"];

/** Only in header mode (another origin): the credential, for this tab only. */
const CREDENTIAL_KEY = "clarion.credential";
/** The environment last chosen in this tab, so a reload stays in it. */
const ENVIRONMENT_KEY = "clarion.environment";
const DASHBOARD_HEADER = { "X-Clarion-Dashboard": "1" } as const;

export interface Session {
  /** null until the API has said (on load), then null again when signed out. */
  who: Who | null;
  /** Whether the API has been asked yet. */
  checked: boolean;
  /** The slug every request acts in; "" when the admin has no environment yet. */
  environment: string;
  setEnvironment: (slug: string) => void;
  /**
   * The environment the address named (a shared link) when this session cannot open it: an
   * environment's key reaches its own only, and an unknown slug is no environment at all. The
   * dashboard says so instead of opening another environment; choosing one clears it.
   */
  refused: string | null;
  /** Checks the credential with the API (throws its ApiError) and signs in. */
  signIn: (credential: string) => Promise<void>;
  signOut: () => Promise<void>;
  /** Asks again which environments the session reaches (after one is created or deleted). */
  refresh: () => Promise<void>;
}

const SessionContext = createContext<Session | null>(null);

const storedCredential = () => (SESSION_MODE === "header" ? (sessionStorage.getItem(CREDENTIAL_KEY) ?? "") : "");

/** The environment to work in: the one chosen before if it is still reachable, else development, else the first. */
function pick(who: Who, wanted: string): string {
  const slugs = who.environments.map((e) => e.slug);
  if (slugs.includes(wanted)) return wanted;
  if (slugs.includes("development")) return "development";
  return slugs[0] ?? "";
}

/** `Authorization` in header mode; in cookie mode the cookie goes by itself and this header lets the API count it. */
const authHeaders = (credential: string): Record<string, string> =>
  SESSION_MODE === "header" ? (credential ? { Authorization: `ApiKey ${credential}` } : {}) : { ...DASHBOARD_HEADER };

/** Signing in and out names its own credential on each call: no environment yet. */
const sessionApi = createApi({});

const whoIs = (credential: string) => unwrap(sessionApi.GET("/v1/dashboard/session", { headers: authHeaders(credential) }));

export function SessionProvider({ children }: { children: ReactNode }) {
  const [credential, setCredential] = useState(storedCredential);
  const [who, setWho] = useState<Who | null>(null);
  const [checked, setChecked] = useState(false);
  // A link's environment first (/dashboard/env/<slug>/…), then the one last chosen in this tab.
  const [environment, setEnvironmentState] = useState(() => environmentInAddress() ?? sessionStorage.getItem(ENVIRONMENT_KEY) ?? "");
  // The link's environment until it has been checked against a session (or set aside by a choice).
  const linked = useRef(environmentInAddress());
  const [refused, setRefused] = useState<string | null>(null);

  // A new client when the credential or the environment changes; every page below reads it from context.
  const acting = who ? environment : "";
  const api = useMemo(
    () => createApi({ ...authHeaders(credential), ...(acting ? { "Clarion-Environment": acting } : {}) }),
    [credential, acting],
  );

  const accept = useCallback((next: Who | null) => {
    setWho(next);
    setEnvironmentState((current) => (next ? pick(next, current) : current));
    const slug = linked.current;
    if (next && slug !== null) {
      setRefused(next.environments.some((e) => e.slug === slug) ? null : slug);
      linked.current = null;
    }
    setChecked(true);
  }, []);

  // On load: is there a session already (the cookie, or the tab's credential)?
  useEffect(() => {
    if (SESSION_MODE === "header" && !storedCredential()) return accept(null);
    let live = true;
    whoIs(storedCredential())
      .then((w) => live && accept(w))
      .catch(() => live && accept(null));
    return () => {
      live = false;
    };
  }, [accept]);

  useEffect(() => {
    if (environment) sessionStorage.setItem(ENVIRONMENT_KEY, environment);
  }, [environment]);

  const signIn = useCallback(
    async (value: string) => {
      if (SESSION_MODE === "cookie") {
        accept(
          await unwrap(
            sessionApi.POST("/v1/dashboard/session", { body: { credential: value }, params: { header: { "x-clarion-dashboard": "1" } } }),
          ),
        );
      } else {
        const next = await whoIs(value);
        sessionStorage.setItem(CREDENTIAL_KEY, value);
        setCredential(value);
        accept(next);
      }
    },
    [accept],
  );

  const signOut = useCallback(async () => {
    if (SESSION_MODE === "cookie") {
      await unwrap(sessionApi.DELETE("/v1/dashboard/session", { params: { header: { "x-clarion-dashboard": "1" } } })).catch(
        () => undefined,
      );
    }
    sessionStorage.removeItem(CREDENTIAL_KEY);
    setCredential("");
    setWho(null);
    // Signing out from a refused link keeps it for the next sign-in.
    if (refused) linked.current = refused;
    setRefused(null);
  }, [refused]);

  const refresh = useCallback(async () => {
    try {
      accept(await whoIs(credential));
    } catch (error) {
      if (error instanceof ApiError && error.problem.status === 401) accept(null);
      else throw error;
    }
  }, [accept, credential]);

  const setEnvironment = useCallback((slug: string) => {
    setEnvironmentState(slug);
    setRefused(null);
  }, []);

  const session = useMemo(
    () => ({ who, checked, environment, setEnvironment, refused, signIn, signOut, refresh }),
    [who, checked, environment, setEnvironment, refused, signIn, signOut, refresh],
  );
  return (
    <SessionContext.Provider value={session}>
      <ApiContext.Provider value={api}>{children}</ApiContext.Provider>
    </SessionContext.Provider>
  );
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useSession outside SessionProvider");
  return session;
}
