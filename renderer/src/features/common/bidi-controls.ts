/**
 * Session text is shown with its invisible bidi embeddings, overrides and isolates (U+202A–U+202E,
 * U+2066–U+2069) spelled out as `\u202e`, as the CLI shows them on a terminal: otherwise a title,
 * file name or tool argument "Report\u202Efdp.exe" reads "Reportexe.pdf", and an override reorders
 * the text after it. Other control characters (the ESC of a colour code in a recorded tool output,
 * BEL, NUL, DEL, C1; not tabs and line breaks) are spelled out the same way (`\u001b[31m`), where a
 * browser drew a box or nothing: Unicode's control pictures (␛), which the CLI prints on a
 * terminal, are missing from many fonts. For display only; what is stored, edited or exported
 * stays as it is.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point here.
const SHOWN_CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

const visible = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;

export function showBidiControls(text: string): string {
  return text.replace(SHOWN_CONTROLS, visible);
}
