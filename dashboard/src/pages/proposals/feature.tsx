import type { Feature } from "../../app/feature";
import { lazyPage } from "../../app/lazy-page";

const ProposalsPage = lazyPage(() => import("./ProposalsPage"), "ProposalsPage");
const ProposalPage = lazyPage(() => import("./ProposalPage"), "ProposalPage");

/** Reached from the Workflows page (its content links); the navigation's Workflows link counts what waits. */
export const proposals: Feature = {
  routes: [
    { path: "proposals", element: <ProposalsPage /> },
    { path: "proposals/:id", element: <ProposalPage /> },
  ],
};
