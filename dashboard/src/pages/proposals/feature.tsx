import type { Feature } from "../../app/feature";
import { lazyPage } from "../../app/lazy-page";
import { PendingCount } from "./PendingCount";

const ProposalsPage = lazyPage(() => import("./ProposalsPage"), "ProposalsPage");
const ProposalPage = lazyPage(() => import("./ProposalPage"), "ProposalPage");

export const proposals: Feature = {
  nav: { label: "Proposals", to: "/proposals", extra: <PendingCount /> },
  routes: [
    { path: "proposals", element: <ProposalsPage /> },
    { path: "proposals/:id", element: <ProposalPage /> },
  ],
};
