/**
 * The width the CLI fits its own text to: `COLUMNS` when set (a whole number), else the
 * terminal's width when the stream is a terminal; none when piped or redirected (the text is
 * then written as it is, as scripts and tests read it).
 */

/** Narrower widths are taken as this: tree lines and figures need some room. */
export const MIN_COLUMNS = 20;

export interface SizedStream {
  isTTY?: boolean;
  columns?: number;
}

export function outputColumns(
  stream: SizedStream,
  env: Readonly<Record<string, string | undefined>>,
): number | undefined {
  const given = env.COLUMNS?.trim() ?? "";
  if (/^\d+$/.test(given) && Number(given) > 0) return Math.max(MIN_COLUMNS, Number(given));
  const columns = stream.isTTY === true ? (stream.columns ?? 0) : 0;
  return columns > 0 ? Math.max(MIN_COLUMNS, columns) : undefined;
}
