/**
 * The window's theme: "system" follows the OS (prefers-color-scheme); "light"/"dark" set
 * `data-theme` on <html>, which styles.css honours over the media query.
 */
export type Theme = "system" | "light" | "dark";

/** The part of an element this needs (the caller passes document.documentElement). */
export interface ThemeRoot {
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
}

export function applyTheme(theme: Theme, root: ThemeRoot): void {
  if (theme === "system") root.removeAttribute("data-theme");
  else root.setAttribute("data-theme", theme);
}
