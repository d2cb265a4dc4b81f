// Novu's REST API as a thin layer over Clarion's own logic: see README "Migrating from Novu".
import { createRouter } from "../../lib/openapi";
import { novuEventsRoutes } from "./events";
import { novuListsV1Routes } from "./lists-v1";
import { novuListsV2Routes } from "./lists-v2";
import { novuSubscribersV1Routes } from "./subscribers-v1";
import { novuSubscribersV2Routes } from "./subscribers-v2";
import { novuTopicMemberRoutes } from "./topic-member";
import { novuTopicsRoutes } from "./topics";

/** Mounted before Clarion's own routes: where both serve a path, the Novu handler passes non-Novu clients on. */
export const novuRoutes = createRouter();
novuRoutes.route("/", novuEventsRoutes);
novuRoutes.route("/", novuSubscribersV1Routes);
novuRoutes.route("/", novuSubscribersV2Routes);
novuRoutes.route("/", novuTopicsRoutes);
novuRoutes.route("/", novuListsV1Routes);
novuRoutes.route("/", novuListsV2Routes);
novuRoutes.route("/", novuTopicMemberRoutes);
