import { QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { type ReactNode, useEffect, useState } from "react";
import { BrowserRouter, Navigate, Route, Routes } from "react-router";
import { ApiError } from "../api/problem";
import { SessionProvider, useSession } from "../session/session";
import { SignIn } from "../session/SignIn";
import { Loading } from "../ui/Loading";
import { FEATURES } from "./features";
import { NotFound } from "./NotFound";
import { Shell } from "./Shell";

const isUnauthorized = (error: unknown) => error instanceof ApiError && error.problem.status === 401;

function newQueryClient(onUnauthorized: () => void) {
  return new QueryClient({
    // A 401 means the session ended (it expired, or its key was revoked): back to the sign-in form.
    queryCache: new QueryCache({ onError: (error) => isUnauthorized(error) && onUnauthorized() }),
    defaultOptions: {
      queries: {
        // A 4xx will answer the same again; only a network failure or a 5xx is worth a retry.
        retry: (count, error) => count < 2 && !(error instanceof ApiError && error.problem.status >= 400 && error.problem.status < 500),
        refetchOnWindowFocus: true,
      },
    },
  });
}

/**
 * A query cache of one environment's own: switching environments swaps the whole cache (the
 * scope is keyed by the environment, so its pages remount), so no page can show one
 * environment's data in another whatever its query keys, and an answer still on its way for the
 * old environment lands in a cache nobody reads.
 */
function EnvironmentScope({ children }: { children: ReactNode }) {
  const { refresh } = useSession();
  const [client] = useState(() => newQueryClient(() => void refresh().catch(() => undefined)));
  useEffect(() => () => client.clear(), [client]);
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}

function Signed() {
  const { who, checked, environment } = useSession();
  if (!checked) return <Loading what="your session" />;
  if (!who) return <SignIn />;
  const first = FEATURES[0]?.nav.to;
  return (
    <EnvironmentScope key={environment}>
      <Routes>
        <Route element={<Shell />}>
          <Route index element={first ? <Navigate to={first} replace /> : <NotFound />} />
          {FEATURES.filter((feature) => !feature.adminOnly || who.kind === "admin")
            .flatMap((feature) => feature.routes)
            .map((route) => (
              <Route key={route.path} path={route.path} element={route.element} />
            ))}
          <Route path="*" element={<NotFound />} />
        </Route>
      </Routes>
    </EnvironmentScope>
  );
}

export function App() {
  return (
    <BrowserRouter basename={import.meta.env.BASE_URL.replace(/\/$/, "")}>
      <SessionProvider>
        <Signed />
      </SessionProvider>
    </BrowserRouter>
  );
}
