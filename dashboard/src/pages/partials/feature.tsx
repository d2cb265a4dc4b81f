import type { Feature } from "../../app/feature";
import { lazyPage } from "../../app/lazy-page";

const PartialPage = lazyPage(() => import("./PartialPage"), "PartialPage");
const PartialsPage = lazyPage(() => import("./PartialsPage"), "PartialsPage");

export const partials: Feature = {
  routes: [
    { path: "partials", element: <PartialsPage /> },
    { path: "partials/new", element: <PartialPage /> },
    { path: "partials/:key", element: <PartialPage /> },
  ],
};
