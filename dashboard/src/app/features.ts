import { suppressions } from "../pages/suppressions/feature";
import { workflows } from "../pages/workflows/feature";
import type { Feature } from "./feature";

/** The dashboard's areas, in the navigation's order. */
export const FEATURES: Feature[] = [workflows, suppressions];
