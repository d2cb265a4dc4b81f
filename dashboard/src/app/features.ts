import { environments } from "../pages/environments/feature";
import { suppressions } from "../pages/suppressions/feature";
import type { Feature } from "./feature";

/** The dashboard's areas, in the navigation's order. */
export const FEATURES: Feature[] = [suppressions, environments];
