import { QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { type ReactNode, Suspense, useEffect, useLayoutEffect, useState } from "react";
import { createBrowserRouter, Navigate, RouterProvider } from "react-router";
import { ApiError } from "../api/problem";
import { SessionProvider, useSession } from "../session/session";
import { SignIn } from "../session/SignIn";
import { Loading } from "../ui/Loading";
import { AdminOnly } from "./AdminOnly";
import { EnvironmentRefused } from "./EnvironmentRefused";
import { environmentBase, isComponentPage, moveAddressInto } from "./environment-address";
import { FEATURES } from "./features";
import { lazyPage } from "./lazy-page";
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

function Landing() {
  const first = FEATURES[0]?.nav?.to;
  return first ? <Navigate to={first} replace /> : <NotFound />;
}

const ROUTES = [
  {
    element: <Shell />,
    children: [
      { index: true, element: <Landing /> },
      ...FEATURES.flatMap((feature) =>
        feature.routes.map((route) => ({
          path: route.path,
          element: feature.adminOnly ? <AdminOnly>{route.element}</AdminOnly> : route.element,
        })),
      ),
      { path: "*", element: <NotFound /> },
    ],
  },
];

/**
 * A data router (so a page can hold a navigation back: the workflow editor asks before unsaved
 * changes are left behind) whose basename is the environment's address: every page's links carry
 * the environment without knowing it.
 */
function EnvironmentRouter({ slug }: { slug: string }) {
  const [router, setRouter] = useState<ReturnType<typeof createBrowserRouter> | null>(null);
  // Before the first paint: the address gains the environment, then the router reads it.
  useLayoutEffect(() => {
    moveAddressInto(slug);
    const created = createBrowserRouter(ROUTES, { basename: environmentBase(slug) });
    setRouter(created);
    return () => created.dispose();
  }, [slug]);
  return router ? <RouterProvider router={router} /> : null;
}

/** Signed in, the shell in the chosen environment; otherwise the sign-in form, whatever the address. */
function Gate() {
  const { who, checked, environment, refused } = useSession();
  if (!checked) return <Loading what="your session" />;
  if (!who) return <SignIn />;
  if (refused) return <EnvironmentRefused slug={refused} />;
  return (
    <EnvironmentScope key={environment}>
      <EnvironmentRouter slug={environment} />
    </EnvironmentScope>
  );
}

const UiGallery = lazyPage(() => import("../ui/gallery/UiGallery"), "UiGallery");

export function App() {
  if (isComponentPage()) {
    return (
      <Suspense fallback={<Loading what="the components" />}>
        <UiGallery />
      </Suspense>
    );
  }
  return (
    <SessionProvider>
      <Gate />
    </SessionProvider>
  );
}
