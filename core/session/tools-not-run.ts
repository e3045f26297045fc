/**
 * The one line that tells the user a reply's tool calls were not executed: Canopy's chat turn
 * offers and runs no tools (D17), yet an endpoint may return tool calls. Shared by the app's
 * composer and the CLI so both say the same.
 */
export function toolsNotRunText(names: readonly string[]): string {
  const list = names.length > 0 ? names.join(", ") : "tools";
  const they = names.length === 1 ? "it was" : "they were";
  return `The model also asked to run ${list}; Canopy runs no tools, so ${they} not run (the calls are kept in the reply).`;
}
