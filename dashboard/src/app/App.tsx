import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { BrowserRouter, Navigate, Route, Routes } from "react-router";
import { ApiError } from "../api/problem";
import { SessionProvider, useSession } from "../session/session";
import { SignIn } from "../session/SignIn";
import { FEATURES } from "./features";
import { NotFound } from "./NotFound";
import { Shell } from "./Shell";

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A 4xx will answer the same again; only a network failure or a 5xx is worth a retry.
      retry: (count, error) => count < 2 && !(error instanceof ApiError && error.problem.status >= 400 && error.problem.status < 500),
      refetchOnWindowFocus: true,
    },
  },
});

function Signed() {
  const { credential } = useSession();
  if (!credential) return <SignIn />;
  const first = FEATURES[0]?.nav.to;
  return (
    <Routes>
      <Route element={<Shell />}>
        <Route index element={first ? <Navigate to={first} replace /> : <NotFound />} />
        {FEATURES.flatMap((feature) => feature.routes).map((route) => (
          <Route key={route.path} path={route.path} element={route.element} />
        ))}
        <Route path="*" element={<NotFound />} />
      </Route>
    </Routes>
  );
}

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter basename={import.meta.env.BASE_URL.replace(/\/$/, "")}>
        <SessionProvider>
          <Signed />
        </SessionProvider>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
