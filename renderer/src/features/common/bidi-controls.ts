/**
 * Session text is shown with its invisible bidi embeddings, overrides and isolates (U+202A–U+202E,
 * U+2066–U+2069) spelled out as `\u202e`, as the CLI shows them on a terminal: otherwise a title,
 * file name or tool argument "Report\u202Efdp.exe" reads "Reportexe.pdf", and an override reorders
 * the text after it. For display only; what is stored, edited or exported stays as it is.
 */

const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;

export function showBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, (char) => `\\u${char.charCodeAt(0).toString(16)}`);
}
