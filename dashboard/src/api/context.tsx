import { createContext, useContext } from "react";
import type { Api } from "./client";

/** The signed-in session's client; provided by the session, read by every page through useApi(). */
export const ApiContext = createContext<Api | null>(null);

export function useApi(): Api {
  const api = useContext(ApiContext);
  if (!api) throw new Error("useApi outside the session's ApiContext");
  return api;
}
