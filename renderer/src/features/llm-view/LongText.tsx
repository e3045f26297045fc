/**
 * One text of a message body, cut for display when long (core/text/display-cut): the first
 * ~100 KB on a line boundary, with a note of how much is not shown, "Show all" and "Copy full
 * text". Showing all of a text too long for markdown lays it out as plain text in pieces the
 * browser skips while they are off screen. What is copied is always the whole text.
 */
import { type ReactNode, useMemo, useState } from "react";
import {
  countLines,
  cutForDisplay,
  DISPLAY_CUT_CHARS,
  splitForDisplay,
  utf8Length,
} from "../../../../core/text/display-cut.ts";
import { formatSize } from "../library/library-format.ts";
import { Markdown } from "./Markdown.tsx";

/** Markdown is parsed for texts up to this length; longer ones, shown in full, are plain text. */
export const MARKDOWN_MAX_CHARS = 200_000;
/** Pieces of a long text shown in full (each laid out only when scrolled near). */
const PIECE_CHARS = 20_000;

type Render = "markdown" | "pre" | "p";

export interface LongTextProps {
  text: string;
  render: Render;
  /** Class of the element that holds the text (`tool-output`, `reply-error`…). */
  className?: string;
}

function Whole({ text, render, className }: LongTextProps): ReactNode {
  if (render === "markdown") return <Markdown text={text} />;
  if (render === "pre") return <pre className={className}>{text}</pre>;
  return <p className={className}>{text}</p>;
}

function Pieces({ text, className }: { text: string; className: string | undefined }) {
  const pieces = useMemo(() => splitForDisplay(text, PIECE_CHARS), [text]);
  return (
    <div className={`long-text-all ${className ?? "long-text-plain"}`}>
      {pieces.map((piece, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the pieces of one text never reorder
        <div key={index} className="long-text-piece">
          {piece}
        </div>
      ))}
    </div>
  );
}

function CopyButton({ text }: { text: string }) {
  const [status, setStatus] = useState<string | null>(null);
  const copy = () => {
    // Absent outside a secure context (a page not served from localhost or the app).
    const clipboard = navigator.clipboard as Clipboard | undefined;
    if (!clipboard) {
      setStatus("Could not copy: this page has no access to the clipboard.");
      return;
    }
    clipboard.writeText(text).then(
      () => setStatus(`Copied ${formatSize(utf8Length(text))}.`),
      (error: unknown) =>
        setStatus(`Could not copy: ${error instanceof Error ? error.message : String(error)}`),
    );
  };
  return (
    <>
      <button type="button" className="link-button" onClick={copy}>
        Copy full text
      </button>
      {status && (
        <span className="copy-status" role="status">
          {status}
        </span>
      )}
    </>
  );
}

export function LongText(props: LongTextProps) {
  const { text, render, className } = props;
  const cut = useMemo(() => cutForDisplay(text, DISPLAY_CUT_CHARS), [text]);
  const [showAll, setShowAll] = useState(false);
  const sizes = useMemo(
    () =>
      cut.hiddenChars === 0
        ? null
        : {
            shownBytes: utf8Length(cut.shown),
            totalBytes: utf8Length(text),
            shownLines: countLines(cut.shown),
            totalLines: countLines(text),
          },
    [cut, text],
  );
  if (sizes === null) return <Whole {...props} />;

  const total = `${formatSize(sizes.totalBytes)} (${sizes.totalLines.toLocaleString("en-US")} lines)`;
  if (showAll) {
    const plain = render !== "markdown" || text.length > MARKDOWN_MAX_CHARS;
    return (
      <>
        <p className="cut-note" data-testid="cut-note" data-cut="all">
          All {total} shown
          {render === "markdown" && plain
            ? `, as plain text: markdown is rendered for texts up to ${MARKDOWN_MAX_CHARS.toLocaleString("en-US")} characters`
            : ""}
          .{" "}
          <button type="button" className="link-button" onClick={() => setShowAll(false)}>
            Show less
          </button>{" "}
          <CopyButton text={text} />
        </p>
        {plain ? <Pieces text={text} className={className} /> : <Whole {...props} />}
      </>
    );
  }
  return (
    <>
      <Whole text={cut.shown} render={render} className={className} />
      <p className="cut-note" data-testid="cut-note" data-cut="shown" data-hidden-chars={cut.hiddenChars}>
        Showing the first {formatSize(sizes.shownBytes)} ({sizes.shownLines.toLocaleString("en-US")} lines) of{" "}
        {total}; the other {formatSize(sizes.totalBytes - sizes.shownBytes)} are not shown.{" "}
        <button
          type="button"
          className="link-button"
          aria-label={`Show all ${formatSize(sizes.totalBytes)} of this text`}
          onClick={() => setShowAll(true)}
        >
          Show all
        </button>{" "}
        <CopyButton text={text} />
      </p>
    </>
  );
}
