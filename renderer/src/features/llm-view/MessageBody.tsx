/**
 * The body of one message in the LLM view: markdown prose, a summary with its `<summary>` tags
 * visible (what the model sees), thinking set apart, tool calls as name + pretty JSON, tool output
 * preformatted, image placeholders with their type and size, a block of another kind (redacted
 * thinking) by what it is, and the error of a failed reply.
 * Every text goes through LongText, which shows a very long one cut until the user asks for all;
 * a text that came without its middle gets it from `wholeParts` (the message asked for whole).
 */
import { formatSize } from "../library/library-format.ts";
import { LongText, type LongTextProps } from "./LongText.tsx";
import type { MessagePart } from "./message-parts.ts";

type WholeParts = () => Promise<readonly MessagePart[]>;

/** The whole text of the part at `index` (as `pick` reads it from the part), from the whole message. */
function wholeTextOf(wholeParts: WholeParts | undefined, index: number, pick: (part: MessagePart) => string) {
  if (!wholeParts) return undefined;
  return async () => {
    const part = (await wholeParts())[index];
    if (!part) throw new Error("the message changed");
    return pick(part);
  };
}

/** "blob:sha256:" and the first 12 hex digits of a blob ref (the whole ref is the title). */
const shortRef = (ref: string) => (ref.length > 24 ? `${ref.slice(0, 24)}…` : ref);

/** The text as the model receives it (the shown one has bidi controls spelled out). */
const textOf = (part: MessagePart) => ("text" in part ? (part.copy ?? part.text) : "");
const summaryOf = (part: MessagePart) =>
  part.kind === "summary" ? (part.copy ?? part.summary) : textOf(part);

type Whole = (pick: (part: MessagePart) => string) => (() => Promise<string>) | undefined;

/**
 * A text of a part that may have come without its middle: `copy` is what the model receives, the
 * whole text is read from the whole message with `pick`.
 */
function HoledText({
  text,
  part,
  pick,
  whole,
  render,
  className,
}: {
  text: string;
  part: { hole?: LongTextProps["hole"]; copy?: string | undefined };
  pick: (part: MessagePart) => string;
  whole: Whole;
  render: LongTextProps["render"];
  className?: string;
}) {
  return (
    <LongText
      text={text}
      copyText={part.copy}
      render={render}
      className={className}
      hole={part.hole}
      wholeText={whole(pick)}
    />
  );
}

function Part({ part, whole }: { part: MessagePart; whole: Whole }) {
  switch (part.kind) {
    case "markdown":
      return <HoledText text={part.text} part={part} pick={textOf} whole={whole} render="markdown" />;
    case "summary":
      return (
        <div className="summary-part">
          {part.framing && (
            <div className="summary-framing">
              <LongText text={part.framing} render="markdown" />
            </div>
          )}
          <div className="summary-tag">{"<summary>"}</div>
          <div className="summary-text">
            <HoledText text={part.summary} part={part} pick={summaryOf} whole={whole} render="markdown" />
          </div>
          <div className="summary-tag">{"</summary>"}</div>
          {part.after && <LongText text={part.after} render="markdown" />}
        </div>
      );
    case "thinking":
      return (
        <div className="thinking-part">
          <div className="part-label">thinking</div>
          <HoledText text={part.text} part={part} pick={textOf} whole={whole} render="markdown" />
        </div>
      );
    case "toolCall":
      return (
        <div className="tool-call-part">
          <div className="part-label">
            tool call <code className="tool-name">{part.name}</code>{" "}
            <span className="call-id">{part.id}</span>
          </div>
          <LongText text={part.argumentsJson} render="pre" className="tool-args" />
        </div>
      );
    case "other":
      return (
        <div className="other-block-part">
          <div className="part-label">{part.label}</div>
          <LongText text={part.text} render="pre" className="tool-output" />
        </div>
      );
    case "output":
      return (
        <HoledText
          text={part.text}
          part={part}
          pick={textOf}
          whole={whole}
          render="pre"
          className="tool-output"
        />
      );
    case "image": {
      const size = part.bytes > 0 ? ` · ${formatSize(part.bytes)}` : "";
      // A blob ref (oh-my-pi): the bytes are in the agent's blob store, or nowhere to be found.
      const where = !part.blob
        ? ""
        : part.blob.found
          ? " · from the agent's blob store"
          : ` · ${shortRef(part.blob.ref)} not in the agent's blob store`;
      return (
        <div
          className={`image-part${part.blob && !part.blob.found ? " blob-missing" : ""}`}
          role="img"
          aria-label={`Image (${part.mimeType}${size}${where}), not shown`}
          title={part.blob ? part.blob.ref : undefined}
        >
          [image · {part.mimeType}
          {size}
          {where}]
        </div>
      );
    }
    case "error":
      return <LongText text={part.text} copyText={part.copy} render="p" className="reply-error" />;
  }
}

export function MessageBody({
  parts,
  hiddenChars,
  wholeParts,
}: {
  parts: readonly MessagePart[];
  hiddenChars: number;
  /** The parts of the whole message, for texts that came without their middle. */
  wholeParts?: WholeParts | undefined;
}) {
  return (
    <>
      {parts.map((part, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: parts of one message never reorder
        <Part key={index} part={part} whole={(pick) => wholeTextOf(wholeParts, index, pick)} />
      ))}
      {hiddenChars > 0 && (
        <p className="hidden-note">… {hiddenChars.toLocaleString("en-US")} more characters</p>
      )}
    </>
  );
}
