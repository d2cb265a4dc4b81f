import type { Feature } from "../../app/feature";
import { lazyPage } from "../../app/lazy-page";

const TenantPage = lazyPage(() => import("./TenantPage"), "TenantPage");
const TenantsPage = lazyPage(() => import("./TenantsPage"), "TenantsPage");

/** No navigation link (the main navigation stays one line at 1280 px): reached from the Subscribers page. */
export const tenants: Feature = {
  routes: [
    { path: "tenants", element: <TenantsPage /> },
    { path: "tenants/:id", element: <TenantPage /> },
  ],
};
