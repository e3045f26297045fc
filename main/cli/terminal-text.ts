/**
 * Text for a terminal. Control characters that come with session content (colour codes in a
 * recorded tool output, a screen-clearing or title-setting sequence in a hostile file) are shown
 * as visible symbols instead of acting on the terminal; line breaks and tabs stay. So are the
 * invisible bidi overrides and isolates, which reorder what follows them on the line (a title
 * "x\u202Efdp.exe" would read "xexe.pdf"). Output that is piped or redirected is written as it
 * is, byte for byte (`export` to a file, `--json` to jq).
 */
import { wrapToColumns } from "../../core/text/columns.ts";

/**
 * C0 controls but "\t" and "\n", DEL, the C1 controls (U+009B is CSI on some terminals), and the
 * bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point here.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

function visible(char: string): string {
  const code = char.charCodeAt(0);
  // Unicode's control pictures: ESC shows as ␛, a lone CR as ␍, DEL as ␡.
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return "\u2421";
  return `\\u${code.toString(16).padStart(4, "0")}`;
}

/** `text` with its control characters made visible ("\r\n" is a line break). */
export function terminalText(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(CONTROL, visible);
}

export interface OutputStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

/**
 * Writes one line (a newline added when missing) to `stream`, made safe when it is a terminal;
 * with `columns` (the terminal's width, terminal-width.ts), word-wrapped to it, each line after
 * the first indented by two spaces.
 */
export function lineWriter(stream: OutputStream, columns?: number): (text: string) => void {
  return (text) => {
    const safe = stream.isTTY === true ? terminalText(text) : text;
    const shown =
      columns === undefined ? safe : wrapToColumns(safe.replace(/\n$/, ""), columns, "  ").join("\n");
    stream.write(shown.endsWith("\n") ? shown : `${shown}\n`);
  };
}
