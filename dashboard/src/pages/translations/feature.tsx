import type { Feature } from "../../app/feature";
import { lazyPage } from "../../app/lazy-page";

const TranslationsPage = lazyPage(() => import("./TranslationsPage"), "TranslationsPage");

export const translations: Feature = {
  routes: [{ path: "translations", element: <TranslationsPage /> }],
};
