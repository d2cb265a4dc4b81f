// Who is signed in. An environment's API key reaches that environment alone.
import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from "react";
import { requestAuth } from "../api/client";

const STORAGE_KEY = "clarion.credential";

export interface Session {
  credential: string;
  signIn: (credential: string) => void;
  signOut: () => void;
}

const SessionContext = createContext<Session | null>(null);

/** Kept for the tab only (sessionStorage): closing it signs out. */
const stored = () => sessionStorage.getItem(STORAGE_KEY) ?? "";

export function SessionProvider({ children }: { children: ReactNode }) {
  const [credential, setCredential] = useState(stored);
  requestAuth.headers = (): Record<string, string> => (credential ? { Authorization: `ApiKey ${credential}` } : {});

  const signIn = useCallback((value: string) => {
    sessionStorage.setItem(STORAGE_KEY, value);
    setCredential(value);
  }, []);
  const signOut = useCallback(() => {
    sessionStorage.removeItem(STORAGE_KEY);
    setCredential("");
  }, []);
  const session = useMemo(() => ({ credential, signIn, signOut }), [credential, signIn, signOut]);
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useSession outside SessionProvider");
  return session;
}
