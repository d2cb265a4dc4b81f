import type { Feature } from "../../app/feature";
import { lazyPage } from "../../app/lazy-page";

const LayoutPage = lazyPage(() => import("./LayoutPage"), "LayoutPage");
const LayoutsPage = lazyPage(() => import("./LayoutsPage"), "LayoutsPage");

export const layouts: Feature = {
  routes: [
    { path: "layouts", element: <LayoutsPage /> },
    { path: "layouts/new", element: <LayoutPage /> },
    { path: "layouts/:key", element: <LayoutPage /> },
  ],
};
