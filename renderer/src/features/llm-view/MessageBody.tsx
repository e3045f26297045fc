/**
 * The body of one message in the LLM view: markdown prose, a summary with its `<summary>` tags
 * visible (what the model sees), thinking set apart, tool calls as name + pretty JSON, tool output
 * preformatted, image placeholders with their type and size, and the error of a failed reply.
 */
import { formatSize } from "../library/library-format.ts";
import { Markdown } from "./Markdown.tsx";
import type { MessagePart } from "./message-parts.ts";

function Part({ part }: { part: MessagePart }) {
  switch (part.kind) {
    case "markdown":
      return <Markdown text={part.text} />;
    case "summary":
      return (
        <div className="summary-part">
          {part.framing && (
            <div className="summary-framing">
              <Markdown text={part.framing} />
            </div>
          )}
          <div className="summary-tag">{"<summary>"}</div>
          <div className="summary-text">
            <Markdown text={part.summary} />
          </div>
          <div className="summary-tag">{"</summary>"}</div>
          {part.after && <Markdown text={part.after} />}
        </div>
      );
    case "thinking":
      return (
        <div className="thinking-part">
          <div className="part-label">thinking</div>
          <Markdown text={part.text} />
        </div>
      );
    case "toolCall":
      return (
        <div className="tool-call-part">
          <div className="part-label">
            tool call <code className="tool-name">{part.name}</code>{" "}
            <span className="call-id">{part.id}</span>
          </div>
          <pre className="tool-args">{part.argumentsJson}</pre>
        </div>
      );
    case "output":
      return <pre className="tool-output">{part.text}</pre>;
    case "image": {
      const size = part.bytes > 0 ? ` · ${formatSize(part.bytes)}` : "";
      return (
        <div className="image-part" role="img" aria-label={`Image (${part.mimeType}${size}), not shown`}>
          [image · {part.mimeType}
          {size}]
        </div>
      );
    }
    case "error":
      return <p className="reply-error">{part.text}</p>;
  }
}

export function MessageBody({ parts, hiddenChars }: { parts: readonly MessagePart[]; hiddenChars: number }) {
  return (
    <>
      {parts.map((part, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: parts of one message never reorder
        <Part key={index} part={part} />
      ))}
      {hiddenChars > 0 && (
        <p className="hidden-note">… {hiddenChars.toLocaleString("en-US")} more characters</p>
      )}
    </>
  );
}
