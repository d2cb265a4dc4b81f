// WCAG 2.x contrast, for the preference page's accent: buttons put white text on it, links put it on white.

const channel = (c: number) => {
  const s = c / 255;
  return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
};

/** Relative luminance of `#rrggbb`. */
function luminance(hex: string): number {
  const n = Number.parseInt(hex.slice(1), 16);
  return 0.2126 * channel((n >> 16) & 0xff) + 0.7152 * channel((n >> 8) & 0xff) + 0.0722 * channel(n & 0xff);
}

/** The contrast ratio of `#rrggbb` against white, from 1 to 21. */
export const contrastWithWhite = (hex: string) => 1.05 / (luminance(hex) + 0.05);

/** WCAG AA for normal text. */
export const AA = 4.5;
