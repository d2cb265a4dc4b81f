import { activity } from "../pages/activity/feature";
import { suppressions } from "../pages/suppressions/feature";
import type { Feature } from "./feature";

/** The dashboard's areas, in the navigation's order. */
export const FEATURES: Feature[] = [activity, suppressions];
