import type { Feature } from "../../app/feature";
import { lazyPage } from "../../app/lazy-page";

const AuditPage = lazyPage(() => import("./AuditPage"), "AuditPage");

export const audit: Feature = {
  nav: { label: "Audit log", to: "/audit" },
  routes: [{ path: "audit", element: <AuditPage /> }],
};
