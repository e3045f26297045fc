/**
 * One text of a message body, cut for display when long (core/text/display-cut): the first
 * ~100 KB on a line boundary, with a note of how much is not shown, "Show all" and "Copy full
 * text". Showing all of a text too long for markdown lays it out as plain text in pieces the
 * browser skips while they are off screen. What is copied is always the whole text, as the model
 * receives it (bidi controls as they are, not spelled out as shown). A text that
 * came without its middle (`hole`) is counted whole; "Show all" and "Copy" ask for the rest.
 */
import { type ReactNode, useEffect, useMemo, useState } from "react";
import {
  countLines,
  cutForDisplay,
  DISPLAY_CUT_CHARS,
  splitForDisplay,
  utf8Length,
} from "../../../../core/text/display-cut.ts";
import { type ShownHole, wholeBytes, wholeLength, wholeLines } from "../../../../core/text/text-hole.ts";
import { useCanopy } from "../../store/index.ts";
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
  className?: string | undefined;
  /** The middle of the text is not here: `wholeText` asks for all of it. */
  hole?: ShownHole | undefined;
  /** With a hole: asks for the whole text, as the model receives it (what Copy copies). */
  wholeText?: (() => Promise<string>) | undefined;
  /** The text as the model receives it, when `text` has its bidi controls spelled out. */
  copyText?: string | undefined;
}

function Whole({ text, render, className }: LongTextProps): ReactNode {
  // "Plain text" in the toolbar: the text as the model receives it, markdown not rendered.
  const plain = useCanopy((state) => state.plainText);
  if (render === "markdown" && plain) return <pre className="markdown-as-sent">{text}</pre>;
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

function CopyButton({ text }: { text: string | (() => Promise<string>) }) {
  const [status, setStatus] = useState<string | null>(null);
  const copy = () => {
    // Absent outside a secure context (a page not served from localhost or the app).
    const clipboard = navigator.clipboard as Clipboard | undefined;
    if (!clipboard) {
      setStatus("Could not copy: this page has no access to the clipboard.");
      return;
    }
    let copied = "";
    const whole = typeof text === "string" ? Promise.resolve(text) : text();
    whole
      .then((value) => {
        copied = value;
        return clipboard.writeText(value);
      })
      .then(
        () => setStatus(`Copied ${formatSize(utf8Length(copied))}.`),
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
  const { text, render, className, hole, wholeText } = props;
  const sent = props.copyText ?? text;
  // A hole lies past the cut (text-hole.ts keeps more than DISPLAY_CUT_CHARS before it).
  const cut = useMemo(() => cutForDisplay(text, DISPLAY_CUT_CHARS), [text]);
  const hiddenChars = wholeLength(text, hole) - cut.shown.length;
  const [showAll, setShowAll] = useState(false);
  const [wholeError, setWholeError] = useState<string | null>(null);
  const sizes = useMemo(
    () =>
      hiddenChars === 0
        ? null
        : {
            shownBytes: utf8Length(cut.shown),
            totalBytes: wholeBytes(text, hole),
            shownLines: countLines(cut.shown),
            totalLines: wholeLines(text, hole),
          },
    [cut, text, hole, hiddenChars],
  );
  const waitsForWhole = showAll && hole !== undefined && wholeText !== undefined;
  // Asked for all of a text without its middle: the rest arrives as new props (the message,
  // whole); until then the beginning stays, with the button saying so.
  useEffect(() => {
    if (!waitsForWhole || !wholeText) return;
    let current = true;
    wholeText().catch((error: unknown) => {
      if (!current) return;
      setShowAll(false);
      setWholeError(
        `Could not load the whole text: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
    return () => {
      current = false;
    };
  }, [waitsForWhole, wholeText]);
  if (sizes === null) return <Whole text={text} render={render} className={className} />;
  const copyText = hole && wholeText ? wholeText : sent;
  const askAll = () => {
    setShowAll(true);
    setWholeError(null);
  };

  const total = `${formatSize(sizes.totalBytes)} (${sizes.totalLines.toLocaleString("en-US")} lines)`;
  if (showAll && !hole) {
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
          <CopyButton text={sent} />
        </p>
        {plain ? (
          <Pieces text={text} className={className} />
        ) : (
          <Whole text={text} render={render} className={className} />
        )}
      </>
    );
  }
  return (
    <>
      <Whole text={cut.shown} render={render} className={className} />
      <p className="cut-note" data-testid="cut-note" data-cut="shown" data-hidden-chars={hiddenChars}>
        Showing the first {formatSize(sizes.shownBytes)} ({sizes.shownLines.toLocaleString("en-US")} lines) of{" "}
        {total}; the other {formatSize(sizes.totalBytes - sizes.shownBytes)} are not shown.{" "}
        <button
          type="button"
          className="link-button"
          aria-label={`Show all ${formatSize(sizes.totalBytes)} of this text`}
          disabled={showAll}
          onClick={askAll}
        >
          {showAll ? "Loading all…" : "Show all"}
        </button>{" "}
        <CopyButton text={copyText} />
        {wholeError && (
          <span className="copy-status" role="alert">
            {wholeError}
          </span>
        )}
      </p>
    </>
  );
}
