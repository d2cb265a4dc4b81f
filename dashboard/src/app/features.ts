import { integrations } from "../pages/integrations/feature";
import { suppressions } from "../pages/suppressions/feature";
import { variables } from "../pages/variables/feature";
import type { Feature } from "./feature";

/** The dashboard's areas, in the navigation's order. */
export const FEATURES: Feature[] = [suppressions, integrations, variables];
