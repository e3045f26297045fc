/**
 * The window remembers where it was: bounds, maximized and the theme source, in
 * `window-state.json` in the data folder — validated when read, and clamped to the screens that
 * exist now (a monitor may have gone), so the window never opens off-screen.
 */
import { existsSync, readFileSync } from "node:fs";
import { z } from "zod";
import { replaceOwnFile } from "./library/output-file.ts";

export const WINDOW_STATE_FILE = "window-state.json";
export const DEFAULT_SIZE = { width: 1400, height: 900 } as const;
export const MIN_SIZE = { width: 900, height: 600 } as const;
/** How much of the window must lie on a screen for its position to be kept. */
const MIN_VISIBLE = 100;

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export type ThemeSource = "system" | "light" | "dark";

export interface WindowState {
  /** Undefined: no usable position (the window is centred at the default size). */
  bounds?: Rect;
  maximized: boolean;
  theme: ThemeSource;
}

const int = z.number().int().min(-100_000).max(100_000);
const stateSchema = z.object({
  bounds: z.object({ x: int, y: int, width: int.min(1), height: int.min(1) }).optional(),
  maximized: z.boolean().default(false),
  theme: z.enum(["system", "light", "dark"]).default("system"),
});

export const DEFAULT_WINDOW_STATE: WindowState = { maximized: false, theme: "system" };

function overlap(a: Rect, b: Rect): { width: number; height: number } {
  return {
    width: Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x),
    height: Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y),
  };
}

/**
 * Fits saved bounds to the screens' work areas: at most the size of the screen it is mostly on,
 * at least the minimum size (when the screen allows it), moved fully onto that screen. Bounds
 * that hardly touch any screen are dropped.
 */
export function clampBounds(bounds: Rect, workAreas: readonly Rect[]): Rect | undefined {
  let best: Rect | undefined;
  let bestArea = 0;
  for (const area of workAreas) {
    const { width, height } = overlap(bounds, area);
    if (
      width >= Math.min(MIN_VISIBLE, bounds.width) &&
      height >= Math.min(MIN_VISIBLE, bounds.height) &&
      width * height > bestArea
    ) {
      best = area;
      bestArea = width * height;
    }
  }
  if (!best) return undefined;
  const width = Math.min(Math.max(bounds.width, MIN_SIZE.width), best.width);
  const height = Math.min(Math.max(bounds.height, MIN_SIZE.height), best.height);
  const x = Math.min(Math.max(bounds.x, best.x), best.x + best.width - width);
  const y = Math.min(Math.max(bounds.y, best.y), best.y + best.height - height);
  return { x, y, width, height };
}

/** The saved state, validated and clamped; defaults for a missing or damaged file. */
export function readWindowState(file: string, workAreas: readonly Rect[]): WindowState {
  if (!existsSync(file)) return DEFAULT_WINDOW_STATE;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    raw = String(error);
  }
  const parsed = stateSchema.safeParse(raw);
  if (!parsed.success) return DEFAULT_WINDOW_STATE;
  const bounds = parsed.data.bounds ? clampBounds(parsed.data.bounds, workAreas) : undefined;
  return { maximized: parsed.data.maximized, theme: parsed.data.theme, ...(bounds ? { bounds } : {}) };
}

export function writeWindowState(file: string, state: WindowState): void {
  replaceOwnFile(file, `${JSON.stringify(state, null, 2)}\n`);
}

/** The parts of a BrowserWindow the tracker uses. */
export interface TrackedWindow {
  on(event: "resize" | "move" | "maximize" | "unmaximize" | "close", listener: () => void): unknown;
  getNormalBounds(): Rect;
  isMaximized(): boolean;
}

/**
 * Saves the state `delayMs` after the window stops moving or resizing, and at once when it
 * closes. `current` gives the parts the window does not know (the theme).
 */
export function trackWindowState(
  window: TrackedWindow,
  save: (state: WindowState) => void,
  current: () => WindowState,
  delayMs = 500,
): () => void {
  let timer: NodeJS.Timeout | undefined;
  const snapshot = (): WindowState => ({
    ...current(),
    bounds: window.getNormalBounds(),
    maximized: window.isMaximized(),
  });
  const later = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => save(snapshot()), delayMs);
    timer.unref?.();
  };
  for (const event of ["resize", "move", "maximize", "unmaximize"] as const) window.on(event, later);
  window.on("close", () => {
    if (timer) clearTimeout(timer);
    save(snapshot());
  });
  return () => {
    if (timer) clearTimeout(timer);
  };
}
