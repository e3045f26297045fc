/**
 * Benchmark hook, not a user feature: `?bench=baseline` in the page URL (set only by
 * bench/tree-render.bench.ts) makes the canvas render like React Flow's default — no chain
 * collapsing and no culling (`onlyRenderVisibleElements` off) — so the bench can compare the
 * canvas against that baseline in the same run. Nothing in the UI sets or shows it.
 */
export const benchBaseline: boolean =
  typeof window !== "undefined" && new URLSearchParams(window.location.search).get("bench") === "baseline";
