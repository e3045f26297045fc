/**
 * Whether a key press belongs to a text field (so app-wide shortcuts like Ctrl+Z and F2 leave
 * it alone). A checkbox, a radio button, a select or a button has no text of its own to undo:
 * the shortcuts work there (after ticking "Show archived", Ctrl+Z undoes the last edit).
 */
const NOT_TEXT = new Set([
  "checkbox",
  "radio",
  "button",
  "submit",
  "reset",
  "range",
  "color",
  "file",
  "image",
]);

export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target.tagName === "TEXTAREA") return true;
  return target instanceof HTMLInputElement && !NOT_TEXT.has(target.type);
}
