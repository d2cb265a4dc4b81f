import type { Feature } from "../../app/feature";
import { lazyPage } from "../../app/lazy-page";

const TranslationsPage = lazyPage(() => import("./TranslationsPage"), "TranslationsPage");

export const translations: Feature = {
  nav: { label: "Translations", to: "/translations" },
  routes: [{ path: "translations", element: <TranslationsPage /> }],
};
