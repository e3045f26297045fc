/**
 * How a session's problems (malformed lines, D2; tree problems, D3) are shown to users: in file
 * order, those without a line last, each as one line of text. Shared by the CLI, the session
 * tree the app draws, and the app's problems list.
 */

/** The problems sorted by line (a stable sort: problems of one line keep their order). */
export function inFileOrder<P extends { line?: number }>(problems: readonly P[]): P[] {
  const at = (p: P) => p.line ?? Number.MAX_SAFE_INTEGER;
  return [...problems].sort((a, b) => at(a) - at(b));
}

/** "line 7: invalid JSON: …", or the message alone for a problem without a line. */
export function problemText(problem: { line?: number; message: string }): string {
  return `${problem.line === undefined ? "" : `line ${problem.line}: `}${problem.message}`;
}
