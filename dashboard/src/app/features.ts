import { activity } from "../pages/activity/feature";
import { analytics } from "../pages/analytics/feature";
import { audit } from "../pages/audit/feature";
import { environments } from "../pages/environments/feature";
import { inbox } from "../pages/inbox/feature";
import { integrations } from "../pages/integrations/feature";
import { layouts } from "../pages/layouts/feature";
import { partials } from "../pages/partials/feature";
import { promote } from "../pages/promote/feature";
import { proposals } from "../pages/proposals/feature";
import { subscribers } from "../pages/subscribers/feature";
import { suppressions } from "../pages/suppressions/feature";
import { tenants } from "../pages/tenants/feature";
import { topics } from "../pages/topics/feature";
import { variables } from "../pages/variables/feature";
import { brand } from "../pages/brand/feature";
import { translations } from "../pages/translations/feature";
import { webhooks } from "../pages/webhooks/feature";
import { workflows } from "../pages/workflows/feature";
import type { Feature } from "./feature";

/** The dashboard's areas, in the navigation's order; the first is where signing in lands. */
export const FEATURES: Feature[] = [
  workflows,
  activity,
  analytics,
  inbox,
  subscribers,
  tenants,
  topics,
  integrations,
  layouts,
  partials,
  variables,
  brand,
  translations,
  suppressions,
  webhooks,
  audit,
  environments,
  promote,
  proposals,
];
