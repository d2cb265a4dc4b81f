import type { Feature } from "../../app/feature";
import { lazyPage } from "../../app/lazy-page";

const BrandPage = lazyPage(() => import("./BrandPage"), "BrandPage");

export const brand: Feature = {
  routes: [{ path: "brand", element: <BrandPage /> }],
};
