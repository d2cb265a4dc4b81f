/** The class names given, without the empty ones: `classNames("button", primary && "primary", className)`. */
export const classNames = (...names: (string | false | null | undefined)[]): string => names.filter(Boolean).join(" ");
