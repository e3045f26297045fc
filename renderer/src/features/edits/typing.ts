/**
 * Whether a key press belongs to a text field (so app-wide shortcuts like Ctrl+Z and F2 leave
 * it alone).
 */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName);
}
