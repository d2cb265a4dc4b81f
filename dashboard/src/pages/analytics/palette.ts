// Series colours: readable on the light and the dark card alike (the tokens' accent, ok and bad hues).
export const COLORS = {
  sent: "#4c6ef5",
  delivered: "#2f9e44",
  engaged: "#ae3ec9",
  opened: "#ae3ec9",
  clicked: "#862e9c",
  read: "#1098ad",
  failed: "#e03131",
  bounced: "#f08c00",
  skipped: "#868e96",
  reached: "#5c7cfa",
} as const;

export const SERIES_COLORS = ["#4c6ef5", "#2f9e44", "#ae3ec9", "#f08c00", "#1098ad", "#e03131", "#868e96"] as const;

/** Recharts' tooltip in the theme's colours (it draws its own box with inline styles). */
export const TOOLTIP_STYLE = {
  contentStyle: { background: "var(--color-card)", borderColor: "var(--color-line)", color: "var(--color-fg)" },
} as const;
